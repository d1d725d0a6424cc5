/*-------------------------------------------------------------------------
 *
 * text_tables.c
 *	  Code tables: a text operation (LIKE, ILIKE, starts_with, a comparison
 *	  with a constant in byte order, a length) evaluated once per distinct
 *	  string of a dictionary, so that the row-level work on the device reads
 *	  dictionary codes only (the opcodes TEXT_IN_SET and TEXT_MAP).
 *
 * A request carries the description of each table (GdbCodeTable: the
 * operation, its text constant, collation and encoding); the side that
 * runs it binds the tables to the dictionary of its data before every
 * batch: the backend's heap read (query_run.c, parallel_feed.c; each
 * participant has its own dictionary) and the GPU server's cache
 * (server_cache.c; the cached columns' dictionary).  Dictionaries only
 * grow, and their codes never change, so a memo (GdbTableMemo) keeps
 * each table's words and evaluates only the strings added since the last
 * bind: a string costs one evaluation per query (per cached relation in
 * the server), whatever the number of its rows.
 *
 * Evaluation calls PostgreSQL's own functions (textlike, texticlike,
 * textlen, ...), so the answers are exactly PostgreSQL's.  In a backend
 * they run under the operation's collation and the database's encoding.
 * The GPU server has no catalog and no database: it runs the operations
 * whose answer does not depend on the collation (LIKE, starts_with, byte
 * order, lengths: they only refuse nondeterministic collations, which the
 * compiler refuses first; substr, left and right) under the C
 * collation, and ILIKE, lower and upper only when the collation's
 * LC_CTYPE is C (GDB_TF_CTYPE_C: lower() then folds ASCII letters only,
 * which the C collation does too), with the database
 * encoding of the request set for the time of the evaluation
 * (SetDatabaseEncoding: the server serves every database, and LIKE's "_"
 * and the character lengths depend on it).
 *
 * No evaluation can raise: the compiler refuses a LIKE pattern that ends
 * with its escape character (the only error of textlike and texticlike,
 * raised only when matching reaches it), a negative substr length and
 * collations that these functions reject.
 *
 * The text-valued functions (lower, upper, substr, left, right) give
 * each string the code of their result, interned into the same
 * dictionary, so their values are codes like the columns' (group keys
 * decode them through it).  The dictionary grows while a table is
 * evaluated; a table covers the codes the dictionary held when its bind
 * began, which are all the codes of the data (a result's code is only
 * ever a value, never looked up).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "gpudb.h"

/* Strings evaluated between resets of the scratch context. */
#define GDB_TABLE_EVAL_CHUNK	1024

/* Tables a memo keeps; beyond, the least recently used is dropped. */
#define GDB_TABLE_MEMO_MAX		64

/* One table's words, for one description. */
typedef struct MemoTable
{
	uint16		fn;
	uint16		flags;
	Oid			collation;
	int32		encoding;
	int32		iarg[2];
	char	   *arg;			/* the constant's bytes (NULL: none) */
	int			arglen;
	int64		ncodes;			/* strings evaluated: codes 0..ncodes-1 */
	uint64	   *words;
	int64		capacity;		/* codes the words have room for */
	uint64		last_use;
	uint64		id;				/* unique in this process (table_words_key) */
} MemoTable;

/* The next MemoTable.id of this process. */
static uint64 next_table_id = 1;

struct GdbTableMemo
{
	MemoryContext mcxt;
	MemoryContext scratch;		/* the evaluations' garbage */
	MemoTable  *tables[GDB_TABLE_MEMO_MAX];
	int			ntables;
	uint64		clock;
	uint64	   *combined;		/* the words of the last bound request */
	uint64		combined_cap;
	uint64		combined_key;	/* their table_words_key (0: none) */
};

/* see gpudb.h */
GdbTableMemo *
gdb_table_memo_create(void)
{
	GdbTableMemo *memo = palloc0(sizeof(GdbTableMemo));

	memo->mcxt = CurrentMemoryContext;
	memo->scratch = AllocSetContextCreate(CurrentMemoryContext,
										  "gpudb code tables",
										  ALLOCSET_SMALL_SIZES);
	return memo;
}

/* Bytes of s without its trailing blanks (bpchar's bcTruelen). */
static int
trimmed_len(const char *s, int len)
{
	while (len > 0 && s[len - 1] == ' ')
		len--;
	return len;
}

/* Byte order (C collation): memcmp, then the shorter first. */
static int
bytes_cmp(const char *a, int la, const char *b, int lb)
{
	int			c = memcmp(a, b, Min(la, lb));

	if (c != 0)
		return c;
	return (la > lb) - (la < lb);
}

/*
 * Evaluate t's operation for codes [from, to) of dict into t->words.
 * in_server: the GPU server's rules (see the file header).
 */
static void
evaluate(GdbTableMemo *memo, MemoTable *t, GdbDictionary *dict, int64 from,
		 int64 to, bool in_server)
{
	text	   *arg = NULL;
	Oid			coll = t->collation;
	MemoryContext old = MemoryContextSwitchTo(memo->scratch);
	int64		code;

	if (t->arg)
		arg = cstring_to_text_with_len(t->arg, t->arglen);
	/*
	 * LIKE's table carries no collation (its answer depends on none: the
	 * compiler refuses nondeterministic ones); textlike refuses InvalidOid
	 * from PostgreSQL 18 on, and under C it answers as without one.
	 */
	if (in_server || (t->fn == GDB_TFN_LIKE && !OidIsValid(coll)))
		coll = C_COLLATION_OID;
	for (code = from; code < to; code++)
	{
		text	   *s = (text *) DatumGetPointer(gdb_dict_datum(dict, code));
		const char *data = VARDATA_ANY(s);
		int			len = VARSIZE_ANY_EXHDR(s);
		int64		v = 0;

		if (t->flags & GDB_TF_RTRIM)
		{
			len = trimmed_len(data, len);
			s = cstring_to_text_with_len(data, len);
			data = VARDATA_ANY(s);
		}
		switch ((GdbTextFn) t->fn)
		{
			case GDB_TFN_LIKE:
			case GDB_TFN_ILIKE:
			case GDB_TFN_REGEX:
			case GDB_TFN_IREGEX:
				/* PostgreSQL's own matcher, over the string and the pattern */
				v = DatumGetBool(DirectFunctionCall2Coll(t->fn == GDB_TFN_LIKE ? textlike :
														 t->fn == GDB_TFN_ILIKE ? texticlike :
														 t->fn == GDB_TFN_REGEX ? textregexeq :
														 texticregexeq, coll,
														 PointerGetDatum(s),
														 PointerGetDatum(arg)));
				break;
			case GDB_TFN_PREFIX:
				v = len >= t->arglen && memcmp(data, t->arg, t->arglen) == 0;
				break;
			case GDB_TFN_LT:
				v = bytes_cmp(data, len, t->arg, t->arglen) < 0;
				break;
			case GDB_TFN_LE:
				v = bytes_cmp(data, len, t->arg, t->arglen) <= 0;
				break;
			case GDB_TFN_GT:
				v = bytes_cmp(data, len, t->arg, t->arglen) > 0;
				break;
			case GDB_TFN_GE:
				v = bytes_cmp(data, len, t->arg, t->arglen) >= 0;
				break;
			case GDB_TFN_CHAR_LENGTH:
				v = DatumGetInt32(DirectFunctionCall1(textlen, PointerGetDatum(s)));
				break;
			case GDB_TFN_OCTET_LENGTH:
				v = len;
				break;
			case GDB_TFN_LOWER:
			case GDB_TFN_UPPER:
			case GDB_TFN_SUBSTR:
			case GDB_TFN_LEFT:
			case GDB_TFN_RIGHT:
				{
					Datum		d = PointerGetDatum(s);
					text	   *res;

					if (t->fn == GDB_TFN_LOWER)
						d = DirectFunctionCall1Coll(lower, coll, d);
					else if (t->fn == GDB_TFN_UPPER)
						d = DirectFunctionCall1Coll(upper, coll, d);
					else if (t->fn == GDB_TFN_SUBSTR && (t->flags & GDB_TF_NOLEN))
						d = DirectFunctionCall2(text_substr_no_len, d,
												Int32GetDatum(t->iarg[0]));
					else if (t->fn == GDB_TFN_SUBSTR)
						d = DirectFunctionCall3(text_substr, d,
												Int32GetDatum(t->iarg[0]),
												Int32GetDatum(t->iarg[1]));
					else
						d = DirectFunctionCall2(t->fn == GDB_TFN_LEFT ? text_left : text_right,
												d, Int32GetDatum(t->iarg[0]));
					/* the result's code, added to the dictionary if new */
					res = DatumGetTextPP(d);
					v = gdb_dict_intern(dict, VARDATA_ANY(res), VARSIZE_ANY_EXHDR(res));
				}
				break;
		}
		if (GDB_TFN_IS_MAP(t->fn))
			t->words[code] = (uint64) v;
		else if (v)
			t->words[code >> 6] |= UINT64CONST(1) << (code & 63);
		if ((code - from) % GDB_TABLE_EVAL_CHUNK == GDB_TABLE_EVAL_CHUNK - 1)
		{
			MemoryContextReset(memo->scratch);
			if (t->arg)
				arg = cstring_to_text_with_len(t->arg, t->arglen);
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(memo->scratch);
}

/* uint64 words that ncodes codes of a table of fn take. */
static int64
table_words(uint16 fn, int64 ncodes)
{
	return GDB_TFN_IS_MAP(fn) ? ncodes : (ncodes + 63) / 64;
}

/* The memo's table for description d with constant arg, made if new. */
static MemoTable *
memo_table(GdbTableMemo *memo, const GdbCodeTable *d, const char *arg,
		   int arglen)
{
	MemoTable  *t;
	int			i;

	for (i = 0; i < memo->ntables; i++)
	{
		t = memo->tables[i];
		if (t->fn == d->fn && t->flags == d->flags &&
			t->collation == d->collation && t->encoding == d->encoding &&
			t->iarg[0] == d->iarg[0] && t->iarg[1] == d->iarg[1] &&
			(t->arg != NULL) == (arg != NULL) && t->arglen == arglen &&
			(arg == NULL || memcmp(t->arg, arg, arglen) == 0))
			return t;
	}
	if (memo->ntables == GDB_TABLE_MEMO_MAX)
	{
		/* drop the least recently used */
		int			lru = 0;

		for (i = 1; i < memo->ntables; i++)
			if (memo->tables[i]->last_use < memo->tables[lru]->last_use)
				lru = i;
		t = memo->tables[lru];
		if (t->arg)
			pfree(t->arg);
		if (t->words)
			pfree(t->words);
		pfree(t);
		memo->tables[lru] = memo->tables[--memo->ntables];
	}
	t = MemoryContextAllocZero(memo->mcxt, sizeof(MemoTable));
	t->id = next_table_id++;
	t->fn = d->fn;
	t->flags = d->flags;
	t->collation = d->collation;
	t->encoding = d->encoding;
	t->iarg[0] = d->iarg[0];
	t->iarg[1] = d->iarg[1];
	if (arg)
	{
		t->arg = MemoryContextAlloc(memo->mcxt, Max(arglen, 1));
		memcpy(t->arg, arg, arglen);
		t->arglen = arglen;
	}
	memo->tables[memo->ntables++] = t;
	return t;
}

/* Make room in t for ncodes codes (new words zeroed). */
static void
memo_grow(GdbTableMemo *memo, MemoTable *t, int64 ncodes)
{
	int64		cap = Max(t->capacity, 1024);
	int64		oldw = table_words(t->fn, t->capacity);
	int64		neww;

	if (ncodes <= t->capacity)
		return;
	while (cap < ncodes)
		cap *= 2;
	neww = table_words(t->fn, cap);
	if (t->words == NULL)
		t->words = MemoryContextAllocExtended(memo->mcxt, neww * sizeof(uint64),
											  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	else
	{
		t->words = repalloc_huge(t->words, neww * sizeof(uint64));
		memset(t->words + oldw, 0, (neww - oldw) * sizeof(uint64));
	}
	t->capacity = cap;
}

/*
 * Bind req's tables to dict, args[j] being table j's constant (NULL for
 * none).  Raises what evaluation raises (see the callers).
 */
static void
bind_tables(GdbTableMemo *memo, GdbDictionary *dict, GdbRequest *req,
			const text *const *args, bool in_server)
{
	int64		ndict = dict ? gdb_dict_size(dict) : 0;
	MemoTable  *ts[GDB_MAX_CODE_TABLES];
	uint64		total = 0;
	uint32		j;
	int			saved_encoding = GetDatabaseEncoding();

	req->ntable_words = 0;
	req->table_words = NULL;
	req->table_words_key = 0;
	if (req->ntables == 0)
		return;
	if (req->ntables > GDB_MAX_CODE_TABLES)
		elog(ERROR, "gpudb: request has %u code tables", req->ntables);
	memo->clock++;
	for (j = 0; j < req->ntables; j++)
	{
		GdbCodeTable *d = &req->tables[j];
		MemoTable  *t;

		if (d->fn > GDB_TFN_LAST)
			elog(ERROR, "gpudb: unknown code table function %u", d->fn);
		t = memo_table(memo, d, args[j] ? VARDATA_ANY(args[j]) : NULL,
					   args[j] ? VARSIZE_ANY_EXHDR(args[j]) : 0);
		t->last_use = memo->clock;
		if (t->ncodes < ndict)
		{
			memo_grow(memo, t, ndict);
			if (in_server && d->encoding != saved_encoding)
			{
				if (!PG_VALID_BE_ENCODING(d->encoding))
					elog(ERROR, "gpudb: code table of unknown encoding %d", d->encoding);
				SetDatabaseEncoding(d->encoding);
			}
			PG_TRY();
			{
				evaluate(memo, t, dict, t->ncodes, ndict, in_server);
			}
			PG_FINALLY();
			{
				if (GetDatabaseEncoding() != saved_encoding)
					SetDatabaseEncoding(saved_encoding);
			}
			PG_END_TRY();
			t->ncodes = ndict;
		}
		ts[j] = t;
		d->ncodes = (uint64) ndict;
		d->word_off = total;
		total += (uint64) table_words(d->fn, ndict);
	}

	/*
	 * in the GPU server, the words' identity: a table's words for the codes
	 * it covers never change (its dictionary only grows), so the tables
	 * (their ids, unique in this process) and the codes covered name the
	 * content (a hash of them; 0 is never a key)
	 */
	if (in_server)
	{
		uint64		v[GDB_MAX_CODE_TABLES + 2];
		int			nv = 0;
		uint64		h;

		v[nv++] = (uint64) ndict;
		v[nv++] = req->ntables;
		for (j = 0; j < req->ntables; j++)
			v[nv++] = ts[j]->id;
		h = hash_bytes_extended((const unsigned char *) v, nv * sizeof(uint64), 0);
		req->table_words_key = h != 0 ? h : 1;
		/* the last request's words are these: nothing to copy */
		if (req->table_words_key == memo->combined_key && memo->combined != NULL)
		{
			req->ntable_words = total;
			req->table_words = memo->combined;
			return;
		}
	}

	/* the request's words: every table's, one after the other */
	memo->combined_key = 0;
	if (memo->combined_cap < Max(total, 1))
	{
		uint64		cap = Max(Max(memo->combined_cap * 2, total), 64);

		if (memo->combined)
			pfree(memo->combined);
		memo->combined = MemoryContextAllocExtended(memo->mcxt, cap * sizeof(uint64),
													MCXT_ALLOC_HUGE);
		memo->combined_cap = cap;
	}
	for (j = 0; j < req->ntables; j++)
		memcpy(memo->combined + req->tables[j].word_off, ts[j]->words,
			   table_words(req->tables[j].fn, ndict) * sizeof(uint64));
	req->ntable_words = total;
	req->table_words = memo->combined;
	memo->combined_key = req->table_words_key;
}

/* see gpudb.h */
void
gdb_tables_bind(GdbTableMemo *memo, GdbDictionary *dict, GdbRequest *req)
{
	const text *args[GDB_MAX_CODE_TABLES];
	uint32		j;

	for (j = 0; j < req->ntables && j < GDB_MAX_CODE_TABLES; j++)
	{
		int32		a = req->tables[j].text_arg;

		if (a >= 0 && (dict == NULL || a >= gdb_dict_size(dict)))
			elog(ERROR, "gpudb: code table constant %d out of range", a);
		args[j] = a >= 0 ? (const text *) DatumGetPointer(gdb_dict_datum(dict, a)) : NULL;
		if (req->tables[j].encoding != GetDatabaseEncoding())
			elog(ERROR, "gpudb: code table of encoding %d in a database of encoding %d",
				 req->tables[j].encoding, GetDatabaseEncoding());
	}
	bind_tables(memo, dict, req, args, false);
}

/* see gpudb.h */
bool
gdb_tables_server_ok(const GdbRequest *req)
{
	uint32		j;

	for (j = 0; j < req->ntables && j < GDB_MAX_CODE_TABLES; j++)
		if ((req->tables[j].fn == GDB_TFN_ILIKE || req->tables[j].fn == GDB_TFN_LOWER ||
			 req->tables[j].fn == GDB_TFN_UPPER || req->tables[j].fn == GDB_TFN_REGEX ||
			 req->tables[j].fn == GDB_TFN_IREGEX) &&
			!(req->tables[j].flags & GDB_TF_CTYPE_C))
			return false;
	return true;
}

/* see gpudb.h */
bool
gdb_tables_bind_server(GdbTableMemo *memo, GdbDictionary *dict,
					   GdbRequest *req, const text *const *consts,
					   uint32 nconsts, char *errbuf, size_t errlen)
{
	MemoryContext old = CurrentMemoryContext;
	const text *args[GDB_MAX_CODE_TABLES];
	volatile bool ok = true;
	uint32		j;

	if (req->ntables > GDB_MAX_CODE_TABLES)
	{
		snprintf(errbuf, errlen, "request has %u code tables", req->ntables);
		return false;
	}
	if (!gdb_tables_server_ok(req))
	{
		snprintf(errbuf, errlen, "ILIKE, lower or upper under a collation whose LC_CTYPE is not C");
		return false;
	}
	for (j = 0; j < req->ntables; j++)
	{
		int32		a = req->tables[j].text_arg;

		if (a >= 0 && (uint32) a >= nconsts)
		{
			snprintf(errbuf, errlen, "code table constant %d out of range", a);
			return false;
		}
		args[j] = a >= 0 ? consts[a] : NULL;
	}
	PG_TRY();
	{
		bind_tables(memo, dict, req, args, true);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(old);
		edata = CopyErrorData();
		FlushErrorState();
		snprintf(errbuf, errlen, "%s", edata->message);
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}
