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
};

/* see gpudb.h */
GdbDictionary *
gdb_dict_create(void)
{
	GdbDictionary *dict = palloc0(sizeof(GdbDictionary));

	dict->mcxt = CurrentMemoryContext;
	dict->table = gdbdict_create(CurrentMemoryContext, 1024, NULL);
	dict->capacity = 1024;
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
