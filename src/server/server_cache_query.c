/*-------------------------------------------------------------------------
 *
 * server_cache_query.c
 *	  Queries answered from the GPU server's column cache
 *	  (GDB_MSG_CACHE_GROUPBY): the entry valid for the query's snapshot, the
 *	  request's columns mapped onto its store, text constants bound to its
 *	  dictionary, a GpudbJoin's build sides (sent with the request, their
 *	  text re-encoded, or kept by the server: server_join_keep.c), the
 *	  visibility of changed rows, and the request run on the device or the
 *	  CPU path; a build side's SELECT may be kept instead of replied.  Runs
 *	  in the GPU server process only; the cache itself is server_cache.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "server_cache_internal.h"

/*
 * Re-encode the text columns of req's build sides (cq->join_text) from
 * codes of the query's dictionary into the entry's: codes[i] is the
 * entry's code of the query's string i (interned first).  false for a
 * build side outside join_data or a code outside the query's dictionary.
 */
static bool
recode_join_text(GdbRequest *req, const GdbCacheQuery *cq, const int64 *codes)
{
	uint32		j,
				c;

	for (j = 0; j < req->njoins && j < GDB_MAX_JOINS; j++)
	{
		GdbBatch   *b;
		uint64		r;

		if (cq->join_text[j] == 0 || req->build_sides[j] != NULL)
			continue;
		if (req->joins[j].build_off + sizeof(GdbBatch) > req->njoin_bytes)
			return false;
		b = (GdbBatch *) ((char *) req->join_data + req->joins[j].build_off);
		if (req->joins[j].build_off + b->total_bytes > req->njoin_bytes)
			return false;
		for (c = 0; c < b->ncols && c < 64; c++)
		{
			int64	   *vals;
			const uint8 *nulls;

			if (!(cq->join_text[j] & (UINT64CONST(1) << c)))
				continue;
			vals = GDB_COL_PTR(b, b, c, int64);
			nulls = GDB_NULL_PTR(b, b, c);
			for (r = 0; r < b->nrows; r++)
			{
				if (nulls && nulls[r])
					continue;
				if (vals[r] < 0 || (uint64) vals[r] >= cq->ntext)
					return false;
				vals[r] = codes[vals[r]];
			}
		}
	}
	return true;
}

/*
 * The code in to's dictionary (interned now if new) of e's string c; the
 * caller is in to's memory context, to->dict made.
 */
static int64
intern_code(CacheEntry *e, CacheEntry *to, int64 c)
{
	text	   *t = DatumGetTextPP(gdb_dict_datum(e->dict, c));

	return gdb_dict_intern(to->dict, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/*
 * Make e's translations of its codes (the host memo CacheEntry.xlat and
 * the device's code map CacheEntry.dxlat) translations into to's
 * dictionary: both forgotten when they were made for another entry.
 */
static void
xlat_target(CacheEntry *e, CacheEntry *to)
{
	if (e->xlat_to == to->id)
		return;
	if (e->xlat)
		pfree(e->xlat);
	e->xlat = NULL;
	e->nxlat = 0;
	gdb_cuda_code_map_free(e->dxlat);
	e->dxlat = NULL;
	e->xlat_to = to->id;
}

/*
 * The code in to's dictionary of e's string c, through e's memo of them
 * (CacheEntry.xlat, made for to: xlat_target, grown to e's dictionary): interned into
 * to's the first time only, so that a build side kept again by the next
 * query (TPC-H Q10's 1.5M customers' four text columns: 6M strings at SF
 * 10) costs a lookup a string.  Both dictionaries only grow, and an entry
 * reloaded is a new entry with another id, so a code once found stays
 * right.  The caller is in to's memory context, to->dict made.
 */
static int64
translated_code(CacheEntry *e, CacheEntry *to, int64 c)
{
	xlat_target(e, to);
	if (c >= e->nxlat)
	{
		int64		n = Max(gdb_dict_size(e->dict), c + 1);

		e->xlat = e->xlat ?
			repalloc_huge(e->xlat, sizeof(int64) * n) :
			MemoryContextAllocExtended(e->mcxt, sizeof(int64) * n, MCXT_ALLOC_HUGE);
		memset(e->xlat + e->nxlat, 0xff, sizeof(int64) * (n - e->nxlat));
		e->nxlat = n;
	}
	if (e->xlat[c] < 0)
		e->xlat[c] = intern_code(e, to, c);
	return e->xlat[c];
}

/*
 * The entry whose dictionary a kept build side's text columns are
 * re-encoded into (cq->keep_for's, the probe relation's) in *to, and
 * whether the result has text columns in *has_text; false when it has
 * text that cannot be re-encoded (that entry not ready, or e without a
 * dictionary).
 */
static bool
keep_text_ready(const GdbCacheQuery *cq, CacheEntry *e, CacheEntry **to, bool *has_text)
{
	uint32		i;

	*to = NULL;
	*has_text = false;
	for (i = 0; i < GDB_MAX_COLUMNS; i++)
		if (cq->key_is_text[i])
			*has_text = true;
	if (!*has_text)
		return true;
	*to = srv_cache_entry_for(&cq->keep_for, true);
	return *to != NULL && e->dict != NULL;
}

/*
 * Re-encode the text columns of a build side kept on the device (dev,
 * header result) from codes of e's dictionary into codes of to's,
 * through e's code map kept on the device (CacheEntry.dxlat): the codes
 * it lacks are found on the device (gdb_cuda_code_map_missing), interned
 * into to's dictionary once each on the host (translated_code), then
 * every row is mapped on the device (gdb_cuda_code_map_apply).  A build
 * side kept again by a later query finds every code in the map: its host
 * work is a counter's read, not a pass over the dictionary or the rows.
 * false with st's error set on a failure.
 */
static bool
recode_kept_on_device(const GdbCacheQuery *cq, CacheEntry *e, CacheEntry *to,
					  const GdbBatch *result, GdbDeviceBuffer *dev, GdbStatusReply *st)
{
	uint32		cols[GDB_MAX_COLUMNS];
	uint32		ncols = 0;
	int64	   *missing = NULL;
	int64	   *into = NULL;
	uint64		n = 0;
	uint64		i;
	int			rc;

	for (i = 0; i < GDB_MAX_COLUMNS && i < result->ncols; i++)
		if (cq->key_is_text[i])
			cols[ncols++] = (uint32) i;
	xlat_target(e, to);
	rc = gdb_cuda_code_map_missing(srv_exec, &e->dxlat, (uint64) gdb_dict_size(e->dict), dev,
								   result, cols, ncols, srv_palloc_no_oom, NULL, &missing, &n,
								   &st->err);
	if (rc == GDB_OK && n > 0)
	{
		MemoryContext old;

		into = MemoryContextAllocExtended(CurrentMemoryContext, sizeof(int64) * n,
										  MCXT_ALLOC_HUGE);
		old = MemoryContextSwitchTo(to->mcxt);
		if (to->dict == NULL)
			to->dict = gdb_dict_create();
		for (i = 0; i < n; i++)
			into[i] = translated_code(e, to, missing[i]);
		MemoryContextSwitchTo(old);
	}
	if (rc == GDB_OK)
		rc = gdb_cuda_code_map_apply(srv_exec, e->dxlat, missing, into, n, dev, result,
									 cols, ncols, &st->err);
	if (missing != NULL)
		pfree(missing);
	if (into != NULL)
		pfree(into);
	if (rc != GDB_OK)
	{
		st->err.status = rc;
		srv_check_device(rc);
		return false;
	}
	return true;
}

/*
 * Keep result, the build side of a GpudbJoin (cq->keep_id), in the server
 * (server_join_keep.c) and reply with its header only; its text columns'
 * codes of e's dictionary are re-encoded into the dictionary of the entry
 * of cq->keep_for, the probe relation, its strings interned there (on the
 * device when dev is there).  dev: result's arrays kept on the device
 * (result holds the header alone), which the kept build side takes.
 * false (nothing kept, nothing replied; dev's arrays copied into result
 * and dev freed) when it cannot be kept: over the limit, or text without
 * the probe relation's entry ready.
 */
static bool
keep_result(int s, const GdbCacheQuery *cq, CacheEntry *e, GdbBatch *result,
			GdbDeviceBuffer *dev, GdbStatusReply *st)
{
	CacheEntry *to;
	bool		has_text;
	uint32		i;

	if (!keep_text_ready(cq, e, &to, &has_text) ||
		!srv_keep_possible(cq->keep_id, result->total_bytes))
	{
		int			rc = dev ? gdb_cuda_buffer_to_host(srv_exec, dev, result, &st->err) :
			GDB_OK;

		gdb_cuda_buffer_free(dev);
		if (rc == GDB_OK)
			return false;
		st->err.status = rc;
		srv_check_device(rc);
		srv_reply(s, st, NULL, 0, NULL, 0);
		return true;
	}
	if (has_text && to != e && dev != NULL)
	{
		if (!recode_kept_on_device(cq, e, to, result, dev, st))
		{
			gdb_cuda_buffer_free(dev);
			srv_reply(s, st, NULL, 0, NULL, 0);
			return true;
		}
	}
	else if (has_text && to != e)
	{
		int64		ncodes = gdb_dict_size(e->dict);
		MemoryContext old = MemoryContextSwitchTo(to->mcxt);

		if (to->dict == NULL)
			to->dict = gdb_dict_create();
		for (i = 0; i < GDB_MAX_COLUMNS && i < result->ncols; i++)
		{
			int64	   *vals = GDB_COL_PTR(result, result, i, int64);
			const uint8 *nulls = GDB_NULL_PTR(result, result, i);
			uint64		r;

			if (!cq->key_is_text[i])
				continue;
			for (r = 0; r < result->nrows; r++)
			{
				int64		c = vals[r];

				if ((nulls && nulls[r]) || c < 0 || c >= ncodes)
					continue;
				vals[r] = translated_code(e, to, c);
			}
		}
		MemoryContextSwitchTo(old);
	}
	if (!srv_keep_build(s, cq->keep_id, result, has_text ? to->id : 0, dev))
	{
		gdb_cuda_buffer_free(dev);
		srv_reply_error(s, GDB_ERR_OUT_OF_MEMORY,
						"out of memory for a kept build side of %llu bytes",
						(unsigned long long) result->total_bytes);
		return true;
	}
	st->cache_state = GDB_CACHE_USED;
	st->value = 1;
	st->result_bytes = sizeof(GdbBatch);
	st->strings_bytes = 0;
	srv_reply(s, st, result, sizeof(GdbBatch), NULL, 0);
	return true;
}

/*
 * Put the visibility test in front of the filter: vis, JUMP_IF_FALSE past
 * the end, the program (jump targets moved by two), AND.  false if it does
 * not fit.
 */
static bool
prefix_visibility(GdbRequest *req, uint32 vis_col)
{
	uint32		n = req->ninstr;
	uint32		i;

	if (n == 0)
	{
		memset(&req->program[0], 0, sizeof(GdbInstr));
		req->program[0].op = GDB_OP_PUSH_COL;
		req->program[0].arg = vis_col;
		req->ninstr = 1;
		return true;
	}
	if (n + 3 > GDB_MAX_INSTR)
		return false;
	memmove(&req->program[2], &req->program[0], sizeof(GdbInstr) * n);
	for (i = 2; i < n + 2; i++)
		if (gdb_op_is_jump(req->program[i].op))
			req->program[i].arg += 2;
	memset(&req->program[0], 0, sizeof(GdbInstr) * 2);
	req->program[0].op = GDB_OP_PUSH_COL;
	req->program[0].arg = vis_col;
	req->program[1].op = GDB_OP_JUMP_IF_FALSE;
	req->program[1].arg = n + 3;
	memset(&req->program[n + 2], 0, sizeof(GdbInstr));
	req->program[n + 2].op = GDB_OP_AND;
	req->ninstr = n + 3;
	return true;
}

bool
srv_handle_cache_groupby(int s, char *payload, size_t len)
{
	GdbCacheQuery *cq = (GdbCacheQuery *) payload;
	GdbStatusReply st;
	CacheEntry *e;
	const uint32 *qxip;
	char	   *p;
	char	   *end = payload + len;
	int			map[GDB_MAX_COLUMNS];
	int64	   *codes;
	const text **consts;
	bool		intern_text;
	uint32		i,
				c;
	GdbRequest *req;
	GdbBatch   *result = NULL;
	GdbDeviceBuffer *dev = NULL;
	bool		keep_on_device;
	int			rc;
	StringInfoData strings;

	memset(&st, 0, sizeof(st));
	if (len < sizeof(GdbCacheQuery) || cq->ncols > GDB_MAX_COLUMNS ||
		cq->snapshot.nxip > GDB_MAX_XIP ||
		len < sizeof(GdbCacheQuery) + cq->snapshot.nxip * sizeof(uint32))
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed cache query");
		return true;
	}
	qxip = (const uint32 *) (payload + sizeof(GdbCacheQuery));

	e = srv_cache_entry_for(&cq->key, true);
	if (e == NULL)
	{
		st.cache_state = srv_cache_entry_for(&cq->key, false) ?
			GDB_CACHE_NOT_READY : GDB_CACHE_ABSENT;
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	if (e->relfilenode != cq->relfilenode || e->change_count != cq->change_count)
	{
		st.cache_state = GDB_CACHE_STALE;
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	for (i = 0; i < cq->ncols; i++)
	{
		map[i] = -1;
		for (c = 0; c < e->ncols; c++)
			if (e->attnums[c] == cq->attnums[i] && e->typids[c] == cq->typids[i] &&
				e->typmods[c] == cq->typmods[i])
				map[i] = c;
		if (map[i] < 0)
		{
			st.cache_state = GDB_CACHE_ABSENT;
			srv_reply(s, &st, NULL, 0, NULL, 0);
			return true;
		}
	}
	if (!srv_cache_snapshot_covers(e, &cq->snapshot, qxip))
	{
		st.cache_state = GDB_CACHE_SNAPSHOT;
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}

	/* map the request's columns onto the store's and bind text constants */
	req = &cq->req;
	if (req->nkeys > GDB_MAX_GROUP_KEYS || req->naggs > GDB_MAX_AGGREGATES ||
		req->ninstr > GDB_MAX_INSTR || req->nout > GDB_MAX_COLUMNS ||
		req->nsort > GDB_MAX_SORT_KEYS)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed request");
		return true;
	}
	for (i = 0; i < req->nkeys; i++)
		if (req->key_cols[i] >= 0 && (uint32) req->key_cols[i] < cq->ncols)
			req->key_cols[i] = map[req->key_cols[i]];
	for (i = 0; i < req->naggs; i++)
		if (req->aggs[i].input_col >= 0 && (uint32) req->aggs[i].input_col < cq->ncols)
			req->aggs[i].input_col = map[req->aggs[i].input_col];
	for (i = 0; i < req->nout; i++)
		if (req->out_cols[i] >= 0 && (uint32) req->out_cols[i] < cq->ncols)
			req->out_cols[i] = map[req->out_cols[i]];
	/* a group-by's sort keys name result columns, not the query's columns */
	for (i = 0; req->oper == GDB_OPER_SORT && i < req->nsort; i++)
		if (req->sort_keys[i].col >= 0 && (uint32) req->sort_keys[i].col < cq->ncols)
			req->sort_keys[i].col = map[req->sort_keys[i].col];
	for (i = 0; i < req->ninstr; i++)
		if (req->program[i].op == GDB_OP_PUSH_COL &&
			req->program[i].arg >= 0 && (uint32) req->program[i].arg < cq->ncols)
			req->program[i].arg = map[req->program[i].arg];
	/* the computed columns' programs (their own indexes need no map) */
	for (i = 0; i < req->neinstr && i < GDB_MAX_EXPR_INSTR; i++)
		if (req->eprogram[i].op == GDB_OP_PUSH_COL &&
			req->eprogram[i].arg >= 0 && (uint32) req->eprogram[i].arg < cq->ncols)
			req->eprogram[i].arg = map[req->eprogram[i].arg];
	/* build sides kept by an earlier request of the query */
	{
		char		why[128] = "";
		int			bound = srv_bind_kept(req, e->id, why, sizeof(why));

		if (bound < 0)
		{
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "%s", why);
			return true;
		}
		if (bound > 0)
		{
			st.cache_state = GDB_CACHE_JOIN_KEPT;
			srv_reply(s, &st, NULL, 0, NULL, 0);
			return true;
		}
	}
	codes = palloc(sizeof(int64) * Max(cq->ntext, 1));
	consts = palloc(sizeof(text *) * Max(cq->ntext, 1));
	p = payload + sizeof(GdbCacheQuery) + cq->snapshot.nxip * sizeof(uint32);

	/*
	 * a join with text keys or payload: every string of the query's
	 * dictionary is interned into the entry's first, so that the build
	 * sides' codes (re-encoded below) and the constants meet the cached
	 * column's codes, and the result's strings decode through one
	 * dictionary
	 */
	for (i = 0; i < req->njoins && i < GDB_MAX_JOINS; i++)
		if (cq->join_text[i] != 0)
			break;
	intern_text = i < req->njoins && i < GDB_MAX_JOINS;

	/*
	 * so too where a text-valued function (lower, substr, ...) is compared
	 * with a constant: its code table interns its results into the entry's
	 * dictionary, and a constant found absent here would not meet them
	 * (a first query after the load would match no row)
	 */
	for (i = 0; i < req->ntables && i < GDB_MAX_CODE_TABLES && !intern_text; i++)
		if (GDB_TFN_IS_TEXT(req->tables[i].fn) && cq->ntext > 0)
			intern_text = true;
	if (intern_text && !srv_cache_intern_strings(e, p, end, cq->ntext, codes))
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed text constants");
		return true;
	}
	for (i = 0; i < cq->ntext; i++)
	{
		uint32		l;

		if (p + sizeof(uint32) > end)
			break;
		memcpy(&l, p, sizeof(uint32));
		p += sizeof(uint32);
		if (l > (uint64) (end - p))
			break;
		if (!intern_text)		/* (interned: their codes are set) */
			codes[i] = e->dict ? gdb_dict_lookup(e->dict, p, l) : -1;
		consts[i] = cstring_to_text_with_len(p, (int) l);
		p += l;
	}
	if (i != cq->ntext || gdb_request_bind_text(req, codes, cq->ntext) != GDB_OK)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed text constants");
		return true;
	}

	/*
	 * a join probe (GpudbJoin): its build sides follow the text constants;
	 * its probe keys that are the relation's columns map onto the store's
	 * (payload columns keep their GDB_JOIN_COL indexes)
	 */
	req->join_data = NULL;
	if (req->njoins > GDB_MAX_JOINS || (uint64) (end - p) != req->njoin_bytes)
	{
		srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed join build sides");
		return true;
	}
	if (req->njoins > 0)
	{
		/* aligned for the batches' columns; past 1 GB for large build sides */
		char	   *data = MemoryContextAllocHuge(CurrentMemoryContext,
												  Max(req->njoin_bytes, 1));

		memcpy(data, p, req->njoin_bytes);
		req->join_data = data;
		if (intern_text && !recode_join_text(req, cq, codes))
		{
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "malformed join build sides");
			return true;
		}
		for (i = 0; i < req->njoins; i++)
			for (c = 0; c < req->joins[i].nkeys && c < GDB_MAX_JOIN_KEYS; c++)
				if (req->joins[i].probe_cols[c] >= 0 &&
					(uint32) req->joins[i].probe_cols[c] < cq->ncols)
					req->joins[i].probe_cols[c] = map[req->joins[i].probe_cols[c]];
	}

	/*
	 * text operations (LIKE, comparisons, lengths): their code tables over
	 * the cached strings, evaluated once per string and kept with the
	 * entry for the next queries (text_tables.c)
	 */
	req->ntable_words = 0;
	req->table_words = NULL;
	req->table_words_key = 0;
	if (req->ntables > 0)
	{
		char		msg[256];
		MemoryContext old;

		if (!gdb_tables_server_ok(req))
		{
			st.cache_state = GDB_CACHE_TEXT_COLLATION;
			srv_reply(s, &st, NULL, 0, NULL, 0);
			return true;
		}
		if (e->tables == NULL)
		{
			old = MemoryContextSwitchTo(e->mcxt);
			e->tables = gdb_table_memo_create();
			MemoryContextSwitchTo(old);
		}
		if (!gdb_tables_bind_server(e->tables, e->dict, req, consts, cq->ntext,
									msg, sizeof(msg)))
		{
			srv_reply_error(s, GDB_ERR_BAD_REQUEST, "code tables: %s", msg);
			return true;
		}
	}

	/* rows changed since the load: their visibility for this snapshot */
	if (hash_get_num_entries(e->pending) > 0)
	{
		int			go = srv_cache_resolve_pending(s, e);

		if (go <= 0)
			return go == 0;
	}
	if (e->has_invisible && !prefix_visibility(req, e->vis_col))
	{
		st.cache_state = GDB_CACHE_ABSENT;
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}

	/*
	 * a GpudbJoin's build side to be kept: on a GPU it stays in device
	 * memory where the device produces it
	 */
	{
		CacheEntry *to;
		bool		has_text;

		/* (not where keep_result could not re-encode its text) */
		keep_on_device = srv_use_gpu && srv_single_device() && cq->keep_id != 0 &&
			srv_keep_possible(cq->keep_id, 0) && keep_text_ready(cq, e, &to, &has_text);
	}

	if (!srv_store_can_run(e->store, req))
	{
		st.cache_state = GDB_CACHE_ABSENT;
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	rc = srv_fault_request(&st.err);
	if (rc == GDB_OK)
		rc = srv_check_scratch(srv_store_max_shard_rows(e->store), req->naggs, &st.err);
	if (rc == GDB_OK)
		rc = srv_store_run(e->store, req, srv_request_alloc, NULL, &result,
						   keep_on_device ? &dev : NULL, &st.stats, &st.err);
	st.err.status = rc;
	srv_check_device(rc);
	if (rc != GDB_OK)
	{
		srv_reply(s, &st, NULL, 0, NULL, 0);
		return true;
	}
	e->hits++;
	e->last_use = GetCurrentTimestamp();

	/* a GpudbJoin's build side the server keeps for the probe */
	if (cq->keep_id != 0 && keep_result(s, cq, e, result, dev, &st))
		return true;
	/* (not kept: keep_result brought dev's arrays into result, freed dev) */

	/* the strings of text group keys, row by row */
	initStringInfo(&strings);
	for (i = 0; i < GDB_MAX_COLUMNS && i < result->ncols; i++)
	{
		const int64 *vals = GDB_COL_PTR(result, result, i, int64);
		const uint8_t *nulls = GDB_NULL_PTR(result, result, i);
		uint64		r;

		if (!cq->key_is_text[i])
			continue;
		for (r = 0; r < result->nrows; r++)
		{
			uint32		l = 0xFFFFFFFF;

			if (nulls && nulls[r])
				appendBinaryStringInfo(&strings, (char *) &l, sizeof(l));
			else
			{
				text	   *t = DatumGetTextPP(gdb_dict_datum(e->dict, vals[r]));

				l = VARSIZE_ANY_EXHDR(t);
				appendBinaryStringInfo(&strings, (char *) &l, sizeof(l));
				appendBinaryStringInfo(&strings, VARDATA_ANY(t), l);
			}
		}
	}
	st.cache_state = GDB_CACHE_USED;
	st.result_bytes = result->total_bytes;
	st.strings_bytes = strings.len;
	srv_reply(s, &st, result, result->total_bytes, strings.data, strings.len);
	return true;
}

