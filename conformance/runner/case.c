/* conformance/runner/case.c — one case of `devharness conformance`: the skips (profile,
 * waivers, missing requirements), the child that sets the device and runs the clause,
 * its answer, crash or timeout, xfail waivers, the verdict; a device's cases run
 * --jobs at a time by the suite's runner (suite/run.c; conformance/runner/runner.h has
 * the file map). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"

dh_target_t* dc_run_target;
dc_waivers_t dc_run_waivers;
const dc_device_t* dc_run_once_device;

/* What the child of one case gets, and the waiver that matched it. */
typedef struct {
  dh_conf_ctx_t ctx;
  const dc_waiver_t* waiver;
} case_arg_t;

static void execute(dh_conf_ctx_t* c) {
  c->status = DC_PASS;
  c->message[0] = c->expected[0] = c->got[0] = c->file[0] = c->details[0] = 0;
  c->line = 0;
  dh_error_clear();
  if (dh_device_set_device(c->dev) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "set_device before the clause");
    return;
  }
  c->clause->run(c);
}

static void case_child(void* arg, int fd) {
  case_arg_t* a = arg;
  execute(&a->ctx);
  dh_write_all(fd, &a->ctx, sizeof a->ctx);
}

static const char* need_reason(uint32_t missing, const dc_device_t* d, const char* target_why) {
  if (missing & DC_NEED_MULTI_QUEUE) return "single queue: create_stream returns NULL";
  if (missing & DC_NEED_HOST_PTR)
    return "opaque handles: no DH_CAP_HOST_POINTER_ARITHMETIC, addresses are not observable";
  if (missing & DC_NEED_TWO_DEVICES) return d->count == 1 ? "only one device" : "needs two devices";
  if (missing & DC_NEED_TARGET) return target_why;
  if (missing & DC_NEED_PINNED_HOST)
    return "no pinned host memory: no DH_CAP_PINNED_HOST (alloc_host/free_host)";
  if (missing & DC_NEED_FUNCTIONS)
    return "no module functions: the backend lists none (noop/fill/echo/raise absent)";
  if (missing & DC_NEED_OPAQUE)
    return "handles are host addresses (DH_CAP_HOST_POINTER_ARITHMETIC, as TVM's CPU DeviceAPI): "
           "a freed, interior or out-of-range handle cannot be told from a live one";
  if (missing & DC_NEED_TENSOR_COPY)
    return "flat backend: the core checks shapes, strides and sizes before copy_data_from_to is "
           "called (harness.copy_checks tests that once per run); no copy_tensor_from_to (ABI 1.4)";
  return "requirement missing";
}

int dc_shard_of(const char* spec, const char* clause_id, int total) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
  for (const char* p = spec; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  h = (h ^ (unsigned char)'\t') * 0x100000001b3ull;
  for (const char* p = clause_id; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  return total > 1 ? 1 + (int)(h % (uint64_t)total) : 1;
}

int dc_case_other_shard(const dc_opts_t* o, const char* group, const char* clause_id, ds_case_t* out) {
  if (o->shard_total <= 1) return 0;
  int k = dc_shard_of(group, clause_id, o->shard_total);
  if (k == o->shard_index) return 0;
  out->verdict = DS_SKIP;
  out->other_shard = 1;
  ds_fmt(out->reason, sizeof out->reason, "in shard %d/%d", k, o->shard_total);
  return 1;
}

/* The requirements of cl that device d lacks (DC_NEED_* bits). */
static uint32_t missing_needs(const dh_clause_t* cl, const dc_device_t* d, int target_applies) {
  uint32_t missing = 0;
  if ((cl->needs & DC_NEED_MULTI_QUEUE) && (dh_device_caps(d->backend) & DH_CAP_SINGLE_QUEUE))
    missing |= DC_NEED_MULTI_QUEUE;
  if ((cl->needs & DC_NEED_HOST_PTR) && !(dh_device_caps(d->backend) & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_HOST_PTR;
  if ((cl->needs & DC_NEED_TWO_DEVICES) && d->count < 2) missing |= DC_NEED_TWO_DEVICES;
  if ((cl->needs & DC_NEED_TARGET) && !target_applies) missing |= DC_NEED_TARGET;
  if ((cl->needs & DC_NEED_PINNED_HOST) &&
      (!(dh_device_caps(d->backend) & DH_CAP_PINNED_HOST) || !d->backend->alloc_host || !d->backend->free_host))
    missing |= DC_NEED_PINNED_HOST;
  if ((cl->needs & DC_NEED_FUNCTIONS) && d->backend->num_functions == 0) missing |= DC_NEED_FUNCTIONS;
  if ((cl->needs & DC_NEED_OPAQUE) && (dh_device_caps(d->backend) & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_OPAQUE;
  if ((cl->needs & DC_NEED_TENSOR_COPY) && d->backend->copy_tensor_from_to == NULL)
    missing |= DC_NEED_TENSOR_COPY;
  return missing;
}

/* A skip decided before the case runs. Returns 0 (the case is final). */
static int skip(ds_case_t* out, int waived, const char* reason) {
  out->verdict = DS_SKIP;
  out->waived = waived;
  ds_fmt(out->reason, sizeof out->reason, "%s", reason);
  return 0;
}

/* A device whose probe found none (a skip) or failed (a violation of every case). */
static int no_device(const dc_device_t* d, ds_case_t* out) {
  if (!d->g->probe_failed) return skip(out, 0, d->g->reason);
  out->verdict = DS_FAIL;
  out->counts = 1;
  ds_fmt(out->reason, sizeof out->reason, "%s", d->g->reason);
  ds_fmt(out->message, sizeof out->message, "%s", d->g->reason);
  ds_fmt(out->expected, sizeof out->expected, "backend init and kExist answer");
  ds_fmt(out->got, sizeof out->got, "%s", "no answer");
  ds_fmt(out->file, sizeof out->file, "%s", "(device probe)");
  return 0;
}

/* Whether --target applies to d; why not into why (n bytes) when it does not. */
static int target_applies(const dc_device_t* d, char* why, size_t n) {
  ds_fmt(why, n, "no --target given");
  if (!dc_run_target) return 0;
  const char* k = dh_target_kind_name(dc_run_target);
  if (d->backend->target_kind && k && strcmp(d->backend->target_kind, k) == 0) return 1;
  ds_fmt(why, n, "target kind %s does not apply to backend %s (kind %s)", k ? k : "?", d->backend->name,
         d->backend->target_kind ? d->backend->target_kind : "none");
  return 0;
}

/* Decides skips and builds the child's context. Returns 1 when the case must run
 * (a is filled), 0 when *out is already final. */
static int case_prepare(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t* cl, ds_case_t* out,
                        case_arg_t* a) {
  memset(out, 0, sizeof *out);
  if (dc_case_other_shard(o, d->g->name, cl->id, out)) return 0;
  if (d->id < 0) return no_device(d, out);
  char why[512];
  if ((cl->needs & DC_ONCE) && d != dc_run_once_device) {
    ds_fmt(why, sizeof why, "harness self-test: it tests devharness's core, not the backend, "
           "and runs once per run (on %s)", dc_run_once_device ? dc_run_once_device->g->name : "no device");
    return skip(out, 0, why);
  }
  if (cl->profile > d->profile) {
    ds_fmt(why, sizeof why, "profile %s clause (%s); this run holds %s to profile %s", dc_profile_name(cl->profile),
           cl->source, d->g->name, dc_profile_name(d->profile));
    return skip(out, 0, why);
  }
  /* waivers: --waivers first, then the backend's own file */
  const dc_waiver_t* w = dc_waivers_match(&dc_run_waivers, cl->id);
  if (!w) w = dc_waivers_match(&d->waivers, cl->id);
  if (w && w->kind == DC_WAIVE_SKIP) return skip(out, DS_WAIVED_SKIP, w->reason);
  int applies = target_applies(d, why, sizeof why);
  uint32_t missing = missing_needs(cl, d, applies);
  if (missing) return skip(out, 0, need_reason(missing, d, why));
  memset(a, 0, sizeof *a);
  a->waiver = w;
  a->ctx.dev.device_type = d->backend->device_type;
  a->ctx.dev.device_id = d->id;
  a->ctx.backend = d->backend;
  a->ctx.num_devices = d->count;
  a->ctx.target = applies ? dc_run_target : NULL;
  a->ctx.target_name = o->target_arg;
  a->ctx.clause = cl;
  a->ctx.profile = d->profile;
  return 1;
}

/* The clause's own result into the case record. */
static void case_from_ctx(ds_case_t* out, const dh_conf_ctx_t* c) {
  out->verdict = c->status == DC_PASS ? DS_PASS : c->status == DC_SKIP ? DS_SKIP : DS_FAIL;
  ds_fmt(out->message, sizeof out->message, "%.*s", (int)sizeof c->message - 1, c->message);
  ds_fmt(out->expected, sizeof out->expected, "%.*s", (int)sizeof c->expected - 1, c->expected);
  ds_fmt(out->got, sizeof out->got, "%.*s", (int)sizeof c->got - 1, c->got);
  ds_fmt(out->file, sizeof out->file, "%.*s", (int)sizeof c->file - 1, c->file);
  ds_fmt(out->details, sizeof out->details, "%.*s", (int)sizeof c->details - 1, c->details);
  out->line = c->line;
}

/* Fills *out from a child's answer (or its crash / timeout). */
static void case_from_child(const dc_opts_t* o, ds_case_t* out, const dh_child_result_t* r) {
  out->ms = r->ms;
  ds_fmt(out->err_tail, sizeof out->err_tail, "%s", r->err_tail);
  if (r->status == DH_CHILD_ANSWERED && r->size == sizeof(dh_conf_ctx_t)) {
    case_from_ctx(out, (const dh_conf_ctx_t*)r->data);
    return;
  }
  const char* note = r->status == DH_CHILD_ANSWERED ? "crashed: exited without a result" : r->note;
  out->verdict = DS_FAIL;
  out->line = 0;
  out->details[0] = '\0';
  ds_fmt(out->note, sizeof out->note, "%s", note);
  ds_fmt(out->message, sizeof out->message, "%s", note);
  ds_fmt(out->expected, sizeof out->expected, "a result within %d s", o->timeout_s);
  ds_fmt(out->got, sizeof out->got, "%s", note);
  ds_fmt(out->file, sizeof out->file, "%s", "(child process)");
}

void dc_device_clean(dc_device_t* d) {
  ds_fmt(d->g->package, sizeof d->g->package, "%s", d->backend->name);
  dh_text_clean(d->g->package, sizeof d->g->package);
  dh_text_clean(d->g->name, sizeof d->g->name);
  dh_text_clean(d->g->reason, sizeof d->g->reason);
}

/* Applies xfail waivers and decides whether the case counts as a violation: the
 * verdict, set here once. */
static void case_finalize(const dc_opts_t* o, ds_case_t* out, const dc_waiver_t* w) {
  if (out->verdict == DS_SKIP) ds_fmt(out->reason, sizeof out->reason, "%s", out->message);
  if (w && w->kind == DC_WAIVE_XFAIL) {
    out->waived = DS_WAIVED_XFAIL;
    ds_fmt(out->reason, sizeof out->reason, "%s", w->reason);
    if (out->verdict == DS_PASS && o->verify_xfails) {
      out->verdict = DS_FAIL;
      out->counts = 1;
      ds_fmt(out->message, sizeof out->message, "expected failure (xfail: %s) passed; remove the waiver (%s)",
             w->reason, w->origin);
      ds_fmt(out->expected, sizeof out->expected, "a failure (xfail waiver)");
      ds_fmt(out->got, sizeof out->got, "pass");
      ds_fmt(out->file, sizeof out->file, "%s", w->origin);
      out->line = 0;
    } else if (out->verdict != DS_SKIP) {
      out->xpass = out->verdict == DS_PASS;
      out->verdict = DS_XFAIL;
    }
  } else if (out->verdict == DS_FAIL) {
    out->counts = 1;
  }
}

/* One device's run as the suite's runner drives it (suite/suite.h ds_runner_t). */
typedef struct device_run {
  const dc_opts_t* o;
  const dc_device_t* d;
  const dh_clause_t** cl;
  ds_case_t* cases;
  void (*done)(size_t k, void* user);
  void* user;
} device_run_t;

static int run_prepare(void* user, size_t i, void* arg) {
  device_run_t* r = user;
  return case_prepare(r->o, r->d, r->cl[i], &r->cases[i], arg);
}

static void run_finish(void* user, size_t i, void* arg, dh_child_result_t* res) {
  device_run_t* r = user;
  case_from_child(r->o, &r->cases[i], res);
  case_finalize(r->o, &r->cases[i], ((case_arg_t*)arg)->waiver);
}

static int run_alone(void* user, size_t i) { return (((device_run_t*)user)->cl[i]->needs & DC_RUN_ALONE) != 0; }

static void run_done(void* user, size_t i) {
  device_run_t* r = user;
  r->done(i, r->user);
}

void dc_run_device(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t** cl, size_t ncl, ds_case_t* cases,
                   void (*done)(size_t k, void* user), void* user) {
  device_run_t dr = {o, d, cl, cases, done, user};
  ds_runner_t r = {.n = ncl, .jobs = o->jobs, .timeout_s = o->timeout_s, .no_fork = o->no_fork,
                   .arg_size = sizeof(case_arg_t), .user = &dr, .prepare = run_prepare, .child = case_child,
                   .finish = run_finish, .alone = run_alone, .done = run_done};
  if (ds_run(&r) != 0)
    for (size_t i = 0; i < ncl; i++) { /* out of memory: every case says so */
      memset(&cases[i], 0, sizeof cases[i]);
      cases[i].verdict = DS_FAIL;
      cases[i].counts = 1;
      ds_fmt(cases[i].message, sizeof cases[i].message, "runner: out of memory");
      ds_fmt(cases[i].file, sizeof cases[i].file, "(runner)");
      done(i, user);
    }
}
