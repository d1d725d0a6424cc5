/*-------------------------------------------------------------------------
 *
 * dictionary.c
 *	  Dictionary encoding of text values into dense integer codes.
 *
 * The device never sees text: each distinct string of a request's text
 * columns (and of the filter's text constants) gets a code, 0, 1, 2, ... in
 * order of first appearance, and batches carry the codes.  Equal codes mean
 * byte-equal strings, which is text equality under every deterministic
 * collation.  The hash table is PostgreSQL's simplehash, keyed by the
 * string's bytes (hash_bytes); strings are copied into the dictionary's
 * memory context, so codes decode back to the exact original datum.
 *
 * Codes are not in string order.  gdb_dict_ranks gives each code its
 * rank among the dictionary's strings in byte order (memcmp of the bytes,
 * a proper prefix first: PostgreSQL's C and POSIX collation order), which
 * is what a text sort key sorts by on the device (text_rank.c).  The
 * strings are kept sorted incrementally: the codes added since the last
 * call are sorted (qsort) and merged into the sorted ones, so a query that
 * asks after every batch pays O(new log new + all) per batch.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "gpudb.h"

typedef struct GdbDictKey
{
	const char *data;
	int			len;
} GdbDictKey;

typedef struct GdbDictEntry
{
	GdbDictKey	key;			/* points into the dictionary's own copy */
	uint32		hash;
	int64		code;
	char		status;			/* simplehash's slot status */
} GdbDictEntry;

static inline uint32
dict_key_hash(GdbDictKey k)
{
	return hash_bytes((const unsigned char *) k.data, k.len);
}

static inline bool
dict_key_equal(GdbDictKey a, GdbDictKey b)
{
	return a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
}

#define SH_PREFIX		gdbdict
#define SH_ELEMENT_TYPE GdbDictEntry
#define SH_KEY_TYPE		GdbDictKey
#define SH_GET_HASH(tb, e) ((e)->hash)
#define SH_STORE_HASH
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#define SH_KEY			key
#define SH_HASH_KEY(tb, k) dict_key_hash(k)
#define SH_EQUAL(tb, a, b) dict_key_equal(a, b)
#include "lib/simplehash.h"

struct GdbDictionary
{
	MemoryContext mcxt;
	gdbdict_hash *table;
	Datum	   *datums;			/* code -> text datum */
	int64		ndatums;
	int64		capacity;
	/* byte order, for gdb_dict_ranks (NULL until first asked) */
	int64	   *sorted;			/* the first nsorted codes, in byte order */
	int64	   *ranks;			/* code -> position in sorted */
	int64		nsorted;
	int64		rank_capacity;	/* allocated entries of sorted and ranks */
};

/* see gpudb.h */
GdbDictionary *
gdb_dict_create(void)
{
	GdbDictionary *dict = palloc0(sizeof(GdbDictionary));

	dict->mcxt = CurrentMemoryContext;

	/*
	 * Small at first (both grow by doubling): every column set makes one,
	 * planning included, and most hold no string or a few (1,024 entries
	 * were 4 % of a 10,000-row query's backend time, in memset).
	 */
	dict->table = gdbdict_create(CurrentMemoryContext, 16, NULL);
	dict->capacity = 16;
	dict->datums = palloc(sizeof(Datum) * dict->capacity);
	return dict;
}

/* see gpudb.h */
int64
gdb_dict_intern(GdbDictionary *dict, const char *data, int len)
{
	GdbDictKey	key = {data, len};
	GdbDictEntry *entry;
	bool		found;

	entry = gdbdict_insert(dict->table, key, &found);
	if (!found)
	{
		MemoryContext old = MemoryContextSwitchTo(dict->mcxt);
		text	   *copy = (text *) palloc(VARHDRSZ + len);

		SET_VARSIZE(copy, VARHDRSZ + len);
		memcpy(VARDATA(copy), data, len);
		entry->key.data = VARDATA(copy);
		entry->key.len = len;
		entry->code = dict->ndatums;
		if (dict->ndatums == dict->capacity)
		{
			dict->capacity *= 2;
			dict->datums = repalloc_huge(dict->datums,
										 sizeof(Datum) * dict->capacity);
		}
		dict->datums[dict->ndatums++] = PointerGetDatum(copy);
		MemoryContextSwitchTo(old);
	}
	return entry->code;
}

/* see gpudb.h */
int64
gdb_dict_lookup(GdbDictionary *dict, const char *data, int len)
{
	GdbDictKey	key = {data, len};
	GdbDictEntry *entry = gdbdict_lookup(dict->table, key);

	return entry ? entry->code : -1;
}

/* see gpudb.h */
Datum
gdb_dict_datum(GdbDictionary *dict, int64 code)
{
	if (code < 0 || code >= dict->ndatums)
		elog(ERROR, "gpudb: dictionary code " INT64_FORMAT " out of range", code);
	return dict->datums[code];
}

/* see gpudb.h */
int64
gdb_dict_size(GdbDictionary *dict)
{
	return dict->ndatums;
}

/* Byte order of two dictionary strings: memcmp, then the shorter first. */
static int
dict_bytes_cmp(Datum a, Datum b)
{
	const text *ta = (const text *) DatumGetPointer(a);
	const text *tb = (const text *) DatumGetPointer(b);
	int			la = VARSIZE(ta) - VARHDRSZ;
	int			lb = VARSIZE(tb) - VARHDRSZ;
	int			c = memcmp(VARDATA(ta), VARDATA(tb), Min(la, lb));

	if (c != 0)
		return c;
	return (la > lb) - (la < lb);
}

/* qsort_arg comparator of codes of the dictionary arg. */
static int
dict_code_cmp(const void *a, const void *b, void *arg)
{
	const GdbDictionary *dict = (const GdbDictionary *) arg;

	return dict_bytes_cmp(dict->datums[*(const int64 *) a],
						  dict->datums[*(const int64 *) b]);
}

/* see gpudb.h */
const int64 *
gdb_dict_ranks(GdbDictionary *dict)
{
	int64		nnew = dict->ndatums - dict->nsorted;
	int64	   *fresh;
	int64	   *merged;
	int64		i,
				j,
				k;
	MemoryContext old;

	if (dict->ranks != NULL && nnew == 0)
		return dict->ranks;

	old = MemoryContextSwitchTo(dict->mcxt);
	if (dict->rank_capacity < Max(dict->ndatums, 1))
	{
		int64		cap = Max(dict->capacity, 1);

		if (dict->sorted == NULL)
		{
			dict->sorted = palloc_extended(sizeof(int64) * cap, MCXT_ALLOC_HUGE);
			dict->ranks = palloc_extended(sizeof(int64) * cap, MCXT_ALLOC_HUGE);
		}
		else
		{
			dict->sorted = repalloc_huge(dict->sorted, sizeof(int64) * cap);
			dict->ranks = repalloc_huge(dict->ranks, sizeof(int64) * cap);
		}
		dict->rank_capacity = cap;
	}

	/* the new codes in byte order, then merged with the sorted ones */
	fresh = palloc_extended(sizeof(int64) * Max(nnew, 1), MCXT_ALLOC_HUGE);
	for (i = 0; i < nnew; i++)
		fresh[i] = dict->nsorted + i;
	qsort_arg(fresh, nnew, sizeof(int64), dict_code_cmp, dict);
	merged = palloc_extended(sizeof(int64) * Max(dict->ndatums, 1),
							 MCXT_ALLOC_HUGE);
	i = j = k = 0;
	while (i < dict->nsorted || j < nnew)
	{
		/* strings are distinct: never equal */
		if (j == nnew ||
			(i < dict->nsorted &&
			 dict_bytes_cmp(dict->datums[dict->sorted[i]],
							dict->datums[fresh[j]]) < 0))
			merged[k++] = dict->sorted[i++];
		else
			merged[k++] = fresh[j++];
	}
	memcpy(dict->sorted, merged, sizeof(int64) * k);
	dict->nsorted = k;
	for (i = 0; i < k; i++)
		dict->ranks[dict->sorted[i]] = i;
	pfree(fresh);
	pfree(merged);
	MemoryContextSwitchTo(old);
	return dict->ranks;
}
