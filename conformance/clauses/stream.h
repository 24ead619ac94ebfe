/* conformance/clauses/stream.h — what the stream families (stream.c, stream_env.c) share:
 * the big-transfer buffers and streams, and the backend's optional "trap" function.
 * Private to the stream families; defined in stream.c. */
#ifndef DEVHARNESS_CONFORMANCE_CLAUSES_STREAM_H_
#define DEVHARNESS_CONFORMANCE_CLAUSES_STREAM_H_

#include "check.h"

#define BIG (16 * DC_MIB)

/* Host-side state of the big-transfer clauses. */
typedef struct {
  uint8_t *old, *neu, *out;
  void *A, *C, *D;
  dh_stream_t s1, s2;
} big_t;

/* Waits for every stream, then frees b's host and device buffers and streams. */
void dc_big_free(dh_conf_ctx_t* c, big_t* b);
/* A = old pattern; C = new pattern (both via the NULL stream, synced); then the
 * streams: s1, and s2 when two. */
void dc_big_setup(dh_conf_ctx_t* c, big_t* b, int streams);
/* Queues on s a chain of D2D copies C->D->C... then D->A (A gets the new pattern only
 * after several 16 MiB transfers). */
void dc_big_chain(dh_conf_ctx_t* c, big_t* b, dh_stream_t s);
/* Queues on s the D2H of A into b->out. */
void dc_big_read_A(dh_conf_ctx_t* c, big_t* b, dh_stream_t s);
/* 1 when the backend has the optional module function "trap" (backend.h DH_FUNC_TRAP). */
int dc_has_trap(const dh_backend_t* b);

#endif /* DEVHARNESS_CONFORMANCE_CLAUSES_STREAM_H_ */
