// test/bench/copy_bandwidth.cu — the device's memory bandwidth as a
// device-to-device cudaMemcpy measures it, for test/bench/bench.py (which
// compares the benchmark's kernels with it).
//
// build (here, then carry the binary; the GPU host has the driver only, so
// the CUDA runtime is linked in statically):
//   /usr/local/cuda/bin/nvcc -O2 -cudart static -o test/bench/copy_bandwidth test/bench/copy_bandwidth.cu
//
// usage: copy_bandwidth [GB [ITERATIONS [DEVICE]]]      (default 4 GB, 20, device 0)
//
// Copies GB gigabytes (10^9 bytes) from one device buffer to another, once to
// warm up and then ITERATIONS times, each timed with CUDA events, and prints
// one line of JSON:
//   {"device": ..., "bytes": N, "iterations": I, "median_ms": ..., "best_ms": ...,
//    "copy_GBps": N / median, "read_write_GBps": 2 N / median, "best_read_write_GBps": ...,
//    "theoretical_GBps": ...}
// A copy reads N bytes and writes N bytes, so read_write_GBps (memory traffic
// per second) is the figure to hold a kernel's bytes-read-per-second against.
// theoretical_GBps is 2 x memory clock x bus width (0 where the driver does
// not say).  On an error it prints {"error": "..."} and exits 1.  The buffers
// shrink to fit when the device has less than 2 GB + 5 % free memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void
fail(const char *what, cudaError_t err)
{
	printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorString(err));
	exit(1);
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) fail(#call, e_); } while (0)

int
main(int argc, char **argv)
{
	double		gb = argc > 1 ? atof(argv[1]) : 4.0;
	int			iterations = argc > 2 ? atoi(argv[2]) : 20;
	int			device = argc > 3 ? atoi(argv[3]) : 0;
	size_t		bytes, free_bytes = 0, total_bytes = 0;
	cudaDeviceProp prop;
	void	   *src = NULL, *dst = NULL;
	cudaEvent_t start, stop;
	std::vector<float> ms;
	int			clock_khz = 0, bus_bits = 0;
	char		name[sizeof(prop.name) * 2 + 1];
	int			j = 0;

	if (!(gb > 0) || iterations < 1)
	{
		printf("{\"error\": \"usage: copy_bandwidth [GB [ITERATIONS [DEVICE]]]\"}\n");
		return 1;
	}
	CHECK(cudaSetDevice(device));
	CHECK(cudaGetDeviceProperties(&prop, device));
	CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	bytes = (size_t) (gb * 1e9);
	if (2 * bytes + free_bytes / 20 > free_bytes)
		bytes = free_bytes * 2 / 5;
	bytes &= ~(size_t) 255;
	CHECK(cudaMalloc(&src, bytes));
	CHECK(cudaMalloc(&dst, bytes));
	CHECK(cudaMemset(src, 1, bytes));
	CHECK(cudaMemset(dst, 0, bytes));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));

	CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));	/* warm-up */
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < iterations; i++)
	{
		float		t;

		CHECK(cudaEventRecord(start));
		CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
		CHECK(cudaEventRecord(stop));
		CHECK(cudaEventSynchronize(stop));
		CHECK(cudaEventElapsedTime(&t, start, stop));
		ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	double		median = ms.size() % 2 ? ms[ms.size() / 2] :
		(ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2.0;
	double		best = ms[0];

	/* not fatal: some drivers do not report them */
	if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess)
		clock_khz = 0;
	if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
		bus_bits = 0;
	(void) cudaGetLastError();

	for (const char *p = prop.name; *p && j < (int) sizeof(name) - 2; p++)
	{
		if (*p == '"' || *p == '\\')
			name[j++] = '\\';
		name[j++] = *p;
	}
	name[j] = '\0';

	printf("{\"device\": \"%s\", \"ordinal\": %d, \"bytes\": %zu, \"iterations\": %d, "
		   "\"median_ms\": %.4f, \"best_ms\": %.4f, \"copy_GBps\": %.1f, "
		   "\"read_write_GBps\": %.1f, \"best_read_write_GBps\": %.1f, "
		   "\"theoretical_GBps\": %.1f, \"memory_total_bytes\": %zu}\n",
		   name, device, bytes, iterations, median, best,
		   bytes / median / 1e6, 2.0 * bytes / median / 1e6, 2.0 * bytes / best / 1e6,
		   2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9, total_bytes);
	cudaFree(src);
	cudaFree(dst);
	return 0;
}
