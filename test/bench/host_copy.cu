// test/bench/host_copy.cu — how fast a shared batch buffer (a memfd, the way
// a backend hands its batches to the GPU server) reaches the device, by the
// ways the server can map and copy it.
//
// build (here, then carry the binary; the GPU host has the driver only):
//   /usr/local/cuda/bin/nvcc -O2 -cudart static -o test/bench/host_copy test/bench/host_copy.cu
//
// usage: host_copy [MB [ITERATIONS]]      (default 72 MB, 10)
//
// For a memfd of MB megabytes (10^6 bytes) written once, it times, median of
// ITERATIONS (ms, wall clock around the whole step, the copy synchronised):
//   fresh      mmap, cudaMemcpy host to device, munmap (a mapping per request)
//   populate   the same with MAP_POPULATE (the pages mapped in one call)
//   reused     one mapping kept; cudaMemcpy from it (pageable)
//   register   cudaHostRegister + cudaHostUnregister of the kept mapping
//   registered cudaMemcpy from the kept mapping once registered (pinned)
//   pinned     cudaMemcpy from cudaHostAlloc memory (the ceiling)
// and prints one line of JSON with each median and the GB/s of the copies.
#include <cuda_runtime.h>

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void
fail(const char *what, const char *why)
{
	printf("{\"error\": \"%s: %s\"}\n", what, why);
	exit(1);
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) fail(#call, cudaGetErrorString(e_)); } while (0)

static double
now_ms(void)
{
	return std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

int
main(int argc, char **argv)
{
	size_t		bytes = (size_t) ((argc > 1 ? atof(argv[1]) : 72.0) * 1e6);
	int			iters = argc > 2 ? atoi(argv[2]) : 10;
	int			fd = memfd_create("host_copy", MFD_CLOEXEC);
	void	   *dev;
	void	   *pinned;
	char	   *w;
	std::vector<double> fresh, populate, reused, reg, registered, pin;

	if (fd < 0 || ftruncate(fd, bytes) < 0)
		fail("memfd", strerror(errno));
	w = (char *) mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		fail("mmap", strerror(errno));
	memset(w, 7, bytes);		/* the backend's writes */
	CHECK(cudaMalloc(&dev, bytes));
	CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
	memset(pinned, 7, bytes);
	CHECK(cudaMemcpy(dev, w, bytes, cudaMemcpyHostToDevice));	/* warm up */

	for (int i = 0; i < iters; i++)
	{
		for (int populated = 0; populated < 2; populated++)
		{
			double		t0 = now_ms();
			void	   *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
								 MAP_SHARED | (populated ? MAP_POPULATE : 0), fd, 0);

			if (m == MAP_FAILED)
				fail("mmap", strerror(errno));
			CHECK(cudaMemcpy(dev, m, bytes, cudaMemcpyHostToDevice));
			munmap(m, bytes);
			(populated ? populate : fresh).push_back(now_ms() - t0);
		}
	}
	{
		void	   *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);

		for (int i = 0; i < iters; i++)
		{
			double		t0 = now_ms();

			CHECK(cudaMemcpy(dev, m, bytes, cudaMemcpyHostToDevice));
			reused.push_back(now_ms() - t0);
		}
		for (int i = 0; i < iters; i++)
		{
			double		t0 = now_ms();

			CHECK(cudaHostRegister(m, bytes, cudaHostRegisterDefault));
			reg.push_back(now_ms() - t0);
			if (i + 1 < iters)
				CHECK(cudaHostUnregister(m));
		}
		for (int i = 0; i < iters; i++)
		{
			double		t0 = now_ms();

			CHECK(cudaMemcpy(dev, m, bytes, cudaMemcpyHostToDevice));
			registered.push_back(now_ms() - t0);
		}
		CHECK(cudaHostUnregister(m));
		munmap(m, bytes);
	}
	for (int i = 0; i < iters; i++)
	{
		double		t0 = now_ms();

		CHECK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice));
		pin.push_back(now_ms() - t0);
	}
#define GBPS(v) ((double) bytes / 1e6 / median(v))
	printf("{\"MB\": %.1f, \"iterations\": %d, "
		   "\"fresh_ms\": %.3f, \"fresh_GBps\": %.2f, "
		   "\"populate_ms\": %.3f, \"populate_GBps\": %.2f, "
		   "\"reused_ms\": %.3f, \"reused_GBps\": %.2f, "
		   "\"register_ms\": %.3f, "
		   "\"registered_ms\": %.3f, \"registered_GBps\": %.2f, "
		   "\"pinned_ms\": %.3f, \"pinned_GBps\": %.2f}\n",
		   bytes / 1e6, iters,
		   median(fresh), GBPS(fresh), median(populate), GBPS(populate),
		   median(reused), GBPS(reused), median(reg),
		   median(registered), GBPS(registered), median(pin), GBPS(pin));
	return 0;
}
