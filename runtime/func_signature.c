/*
 * runtime/func_signature.c — a function's signature as TVM prints it when a generated
 * argument check refuses a call (devharness/function.h dh_func_signature_parse;
 * apache-tvm 0.27 tir MakePackedAPI/ArgBinder: "... when calling:\n  `NAME(A:
 * Tensor([16, 16], float32), x: int32)`"), and dh_func_signature_probe, which asks a
 * function for it with a call of no arguments.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "devharness/function.h"
#include "devharness/tensor.h"

typedef struct cursor {
  const char* s;   /* the signature's first character */
  const char* p;   /* where parsing is */
  const char* end; /* one past its last */
} cursor_t;

static int fail(const cursor_t* c, const char* what) {
  return dh_error_set(DH_KIND_VALUE_ERROR, "signature: at offset %d: expected %s", (int)(c->p - c->s), what);
}

static void skip_space(cursor_t* c) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

/* Consumes ch (after spaces): 1, or 0 when the next character is another. */
static int eat(cursor_t* c, char ch) {
  skip_space(c);
  if (c->p < c->end && *c->p == ch) return c->p++, 1;
  return 0;
}

/* An identifier ([A-Za-z_][A-Za-z0-9_.]*) into buf (cut at cap): its length, 0 if none. */
static size_t ident(cursor_t* c, char* buf, size_t cap) {
  skip_space(c);
  const char* b = c->p;
  if (c->p < c->end && (isalpha((unsigned char)*c->p) || *c->p == '_'))
    while (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.')) c->p++;
  size_t n = (size_t)(c->p - b);
  snprintf(buf, cap, "%.*s", (int)n, b);
  return n;
}

/* Text up to the next top-level stop character (not inside brackets), trimmed. */
static size_t until(cursor_t* c, const char* stops, char* buf, size_t cap) {
  skip_space(c);
  const char* b = c->p;
  int depth = 0;
  while (c->p < c->end && (depth > 0 || strchr(stops, *c->p) == NULL)) {
    depth += *c->p == '(' || *c->p == '[';
    depth -= (*c->p == ')' || *c->p == ']') && depth > 0;
    c->p++;
  }
  size_t n = (size_t)(c->p - b);
  while (n > 0 && isspace((unsigned char)b[n - 1])) n--;
  snprintf(buf, cap, "%.*s", (int)n, b);
  return n;
}

/* One dimension: an integer extent, or a symbol's text (dims -1). */
static int dimension(cursor_t* c, dh_func_param_t* p) {
  if (p->ndim >= DH_FUNC_SIG_MAX_NDIM) return fail(c, "at most 8 dimensions");
  char text[DH_FUNC_SIG_NAME_MAX], *endp;
  if (until(c, ",]", text, sizeof text) == 0) return fail(c, "a dimension");
  long long v = strtoll(text, &endp, 10);
  int is_int = *endp == '\0' && v >= 0;
  p->dims[p->ndim] = is_int ? (int64_t)v : -1;
  snprintf(p->sym[p->ndim], sizeof p->sym[p->ndim], "%s", is_int ? "" : text);
  p->ndim++;
  return 0;
}

/* "Tensor([DIMS], DTYPE)" after the word Tensor. */
static int tensor_type(cursor_t* c, dh_func_param_t* p) {
  char dt[64];
  p->kind = DH_FUNC_PARAM_TENSOR;
  if (!eat(c, '(') || !eat(c, '[')) return fail(c, "'([' after Tensor");
  if (!eat(c, ']')) {
    do {
      if (dimension(c, p) != 0) return -1;
    } while (eat(c, ','));
    if (!eat(c, ']')) return fail(c, "',' or ']' in a shape");
  }
  if (!eat(c, ',') || until(c, ")", dt, sizeof dt) == 0) return fail(c, "', DTYPE' after a shape");
  if (!eat(c, ')')) return fail(c, "')' after a tensor's dtype");
  if (dh_dtype_parse(dt, &p->dtype) != 0) return dh_error_set(DH_KIND_VALUE_ERROR, "signature: parameter %s: %s", p->name, dh_error_message());
  return 0;
}

/* "NAME: TYPE". */
static int parameter(cursor_t* c, dh_func_param_t* p) {
  char word[64];
  if (ident(c, p->name, sizeof p->name) == 0) return fail(c, "a parameter name");
  if (!eat(c, ':')) return fail(c, "':' after a parameter name");
  const char* type_at = (skip_space(c), c->p);
  if (ident(c, word, sizeof word) > 0 && strcmp(word, "Tensor") == 0) return tensor_type(c, p);
  c->p = type_at;
  if (until(c, ",)", word, sizeof word) == 0) return fail(c, "a parameter type");
  /* "handle" parses as a dtype (kDLOpaqueHandle): a pointer, no value to make */
  p->kind = dh_dtype_parse(word, &p->dtype) == 0 && p->dtype.code != kDLOpaqueHandle ? DH_FUNC_PARAM_SCALAR
                                                                                     : DH_FUNC_PARAM_OTHER;
  if (p->kind == DH_FUNC_PARAM_OTHER) dh_error_clear(), memset(&p->dtype, 0, sizeof p->dtype);
  return 0;
}

int dh_func_signature_parse(const char* text, dh_func_signature_t* out) {
  if (text == NULL || out == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "signature: NULL text or out");
  memset(out, 0, sizeof *out);
  const char* q = strchr(text, '`');
  const char* q2 = q ? strchr(q + 1, '`') : NULL;
  cursor_t c = {q && q2 ? q + 1 : text, q && q2 ? q + 1 : text, q && q2 ? q2 : text + strlen(text)};
  if (ident(&c, out->name, sizeof out->name) == 0) return fail(&c, "a function name");
  if (!eat(&c, '(')) return fail(&c, "'(' after the function name");
  if (!eat(&c, ')')) {
    do {
      if (out->nparams >= DH_TYPE_SCHEMA_MAX_PARAMS) return fail(&c, "at most 64 parameters");
      if (parameter(&c, &out->params[out->nparams++]) != 0) return -1;
    } while (eat(&c, ','));
    if (!eat(&c, ')')) return fail(&c, "',' or ')' after a parameter");
  }
  skip_space(&c);
  if (c.p != c.end) return fail(&c, "the end after ')'");
  return 0;
}

int dh_func_signature_probe(const dh_function_t* fn, dh_func_signature_t* out) {
  dh_any_t rv = dh_any_none();
  if (dh_func_call(fn, NULL, 0, &rv) == 0) {
    dh_any_release(&rv);
    return dh_error_set(DH_KIND_VALUE_ERROR, "called with no arguments it returned: it reports no signature");
  }
  char msg[DH_ERROR_MESSAGE_MAX];
  snprintf(msg, sizeof msg, "%s", dh_error_message());
  dh_error_clear();
  if (strchr(msg, '`') == NULL || dh_func_signature_parse(msg, out) != 0) {
    char* nl = strchr(msg, '\n');
    if (nl != NULL) *nl = '\0';
    dh_error_clear();
    return dh_error_set(DH_KIND_VALUE_ERROR, "called with no arguments it raised no signature (%s)", msg);
  }
  return 0;
}
