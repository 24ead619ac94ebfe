/*
 * module/call.c — calling a function of the library in a case: loading it, resolving
 * its arguments (the schema's or the signature's kinds, or inferred ones, and the
 * first layout a call returns for), one call with a layout, settling the device, the
 * verdict. Under cases.c, results.c and reference.c; calls args.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

/* "Kind: message" of the raised error into buf ("(none)" when nothing is raised). */
const char* dm_error_text(char* buf, size_t size) {
  const char* k = dh_error_kind();
  char kind[DH_ERROR_KIND_MAX];
  snprintf(kind, sizeof kind, "%s", k ? k : "(none)");
  snprintf(buf, size, "%s: %s", kind, dh_error_message());
  return buf;
}

void dm_verdict(dm_verdict_t* v, ds_verdict_t code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  v->verdict = code;
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
}

static const dm_scalar_t kPlain = {1, 1.0};

int dm_settle(DLDevice dev) {
  if (dev.device_type == kDLCPU) return 0;
  dh_stream_t env = dh_env_get_stream(dev);
  if (env != NULL && dh_device_stream_sync(dev, env) != 0) return -1;
  return dh_device_stream_sync(dev, NULL);
}

int dm_call_try(dm_call_t* c, DLDevice dev, const dm_layout_t* l, dm_scalar_t sc) {
  dm_args_t a;
  int rc = dm_args_make(&c->f, dev, l, sc, &a) == 0 ? 0 : -2;
  if (rc == 0) {
    dh_any_t rv = dh_any_none();
    rc = dh_func_call(&c->fn, a.v, a.n, &rv);
    if (rc == 0) dh_any_release(&rv), rc = dm_settle(dev);
  }
  dm_args_free(&a);
  return rc;
}

/* The signatures tried, in order, for a function without a type schema. */
static const char* const kInfer[] = {"T", "TT", "TTT", "TF", "TTF", "TI", "TTI", "TTTT"};

/* Finds arguments the function accepts: the schema's or signature's kinds (or an
 * inferred list) with the first layout the call returns 0 for. 0, or -1 with *why
 * (the first refusal; why starts empty). */
static int resolve(dm_call_t* c, const dm_target_t* t, char* why, size_t why_size) {
  int known = t->func->has_schema || t->func->has_sig;
  size_t nl, ni = known ? 1 : sizeof kInfer / sizeof kInfer[0];
  const dm_layout_t* ls = dm_layouts(&nl);
  for (size_t s = 0; s < ni; s++) {
    c->f = *t->func;
    if (!known) {
      c->f.nparams = (int)strlen(kInfer[s]);
      for (int i = 0; i < c->f.nparams; i++)
        c->f.kinds[i] = kInfer[s][i] == 'T' ? DM_TENSOR : kInfer[s][i] == 'F' ? DM_FLOAT : DM_INT;
    }
    /* a signature fixes shapes and dtypes: its one layout */
    for (size_t i = 0; i < (t->func->has_sig ? 1 : t->func->has_schema ? nl : 3); i++) {
      if (dm_call_try(c, t->dev, &ls[i], kPlain) == 0) {
        c->layout = ls[i];
        if (!known) snprintf(c->inferred, sizeof c->inferred, "no type schema; inferred %s", kInfer[s]);
        return 0;
      }
      if (why[0] == '\0') dm_error_text(why, why_size); /* the first refusal says most */
      dh_error_clear();
    }
  }
  return -1;
}

int dm_call_open(const dm_target_t* t, dm_call_t* c, dm_verdict_t* v) {
  char why[600] = "";
  memset(c, 0, sizeof *c);
  if (dh_module_load(t->path, &c->mod) != 0 || dh_module_get_function(c->mod, t->func->name, &c->fn) != 0) {
    dm_verdict(v, DS_FAIL, "cannot load %s: %s", t->func->name, dh_error_message());
    return -1;
  }
  if (resolve(c, t, why, sizeof why) == 0) return 0;
  /* TVM's refusal spans lines ("... when calling:\n  `sig`,\n  expected cpu"): one line */
  size_t w = 0;
  for (size_t r = 0; why[r]; r++)
    if (!(why[r] == '\n' || (why[r] == ' ' && w > 0 && why[w - 1] == ' '))) why[w++] = why[r];
    else if (w > 0 && why[w - 1] != ' ') why[w++] = ' ';
  why[w] = '\0';
  v->unresolved = 1;
  if (t->func->has_schema || t->func->has_sig)
    dm_verdict(v, DS_FAIL, "%s: arguments made from its %s were refused (%s)", t->func->name,
               t->func->has_schema ? "type schema" : "signature", why);
  else /* nothing says what it takes: what to give, never a failure of a correct kernel */
    dm_verdict(v, DS_SKIP, "no type schema and no signature reported, and no 1-D layout tried was accepted (the first "
               "refused with %s): give --signature '%s(A: Tensor([n], float32), ...)'", why, t->func->name);
  return -1;
}

