/* conformance/runner/case.c — one case of `devharness conformance`: the skips (profile,
 * waivers, missing requirements), the child that sets the device and runs the clause,
 * its answer, crash or timeout, xfail waivers; a device's cases run --jobs at a time
 * (conformance/runner/runner.h has the file map). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"

dh_target_t* dc_run_target;
dc_waivers_t dc_run_waivers;
const dc_device_t* dc_run_once_device;

typedef struct {
  dh_conf_ctx_t ctx;
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

/* --shard I/N: a case of another shard is a skip that no report counts. */
static int other_shard(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t* cl, dc_case_t* out) {
  if (o->shard_total <= 1) return 0;
  int k = dc_shard_of(d->name, cl->id, o->shard_total);
  if (k == o->shard_index) return 0;
  out->status = DC_SKIP;
  out->other_shard = 1;
  dc_fmt(out->reason, sizeof out->reason, "in shard %d/%d", k, o->shard_total);
  return 1;
}

/* The requirements of cl that device d lacks (DC_NEED_* bits). */
static uint32_t missing_needs(const dh_clause_t* cl, const dc_device_t* d, int target_applies) {
  uint32_t missing = 0;
  if ((cl->needs & DC_NEED_MULTI_QUEUE) && (d->caps & DH_CAP_SINGLE_QUEUE))
    missing |= DC_NEED_MULTI_QUEUE;
  if ((cl->needs & DC_NEED_HOST_PTR) && !(d->caps & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_HOST_PTR;
  if ((cl->needs & DC_NEED_TWO_DEVICES) && d->count < 2) missing |= DC_NEED_TWO_DEVICES;
  if ((cl->needs & DC_NEED_TARGET) && !target_applies) missing |= DC_NEED_TARGET;
  if ((cl->needs & DC_NEED_PINNED_HOST) &&
      (!(d->caps & DH_CAP_PINNED_HOST) || !d->backend->alloc_host || !d->backend->free_host))
    missing |= DC_NEED_PINNED_HOST;
  if ((cl->needs & DC_NEED_FUNCTIONS) && d->backend->num_functions == 0) missing |= DC_NEED_FUNCTIONS;
  if ((cl->needs & DC_NEED_OPAQUE) && (d->caps & DH_CAP_HOST_POINTER_ARITHMETIC))
    missing |= DC_NEED_OPAQUE;
  if ((cl->needs & DC_NEED_TENSOR_COPY) && d->backend->copy_tensor_from_to == NULL)
    missing |= DC_NEED_TENSOR_COPY;
  return missing;
}

/* Decides skips and builds the child's context. Returns 1 when the case must run
 * (a is filled), 0 when *out is already final. */
static int case_prepare(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t* cl, dc_case_t* out,
                        case_arg_t* a) {
  memset(out, 0, sizeof *out);
  out->clause = cl;
  if (other_shard(o, d, cl, out)) return 0;
  /* waivers: --waivers first, then the backend's own file */
  const dc_waiver_t* w = dc_waivers_match(&dc_run_waivers, cl->id);
  if (!w) w = dc_waivers_match(&d->waivers, cl->id);
  out->waiver = w;
  if (d->id < 0) {
    out->status = d->probe_failed ? DC_FAIL : DC_SKIP;
    dc_fmt(out->reason, sizeof out->reason, "%s", d->reason);
    if (d->probe_failed) {
      dc_fmt(out->r.message, sizeof out->r.message, "%s", d->reason);
      dc_fmt(out->r.expected, sizeof out->r.expected, "backend init and kExist answer");
      dc_fmt(out->r.got, sizeof out->r.got, "%s", "no answer");
      dc_fmt(out->r.file, sizeof out->r.file, "%s", "(device probe)");
      out->counts = 1;
    }
    return 0;
  }
  if ((cl->needs & DC_ONCE) && d != dc_run_once_device) {
    out->status = DC_SKIP;
    out->waiver = NULL;
    dc_fmt(out->reason, sizeof out->reason, "harness self-test: it tests devharness's core, not the backend, "
           "and runs once per run (on %s)", dc_run_once_device ? dc_run_once_device->name : "no device");
    return 0;
  }
  if (cl->profile > d->profile) {
    out->status = DC_SKIP;
    out->waiver = NULL;
    dc_fmt(out->reason, sizeof out->reason, "profile %s clause (%s); this run holds %s to profile %s",
        dc_profile_name(cl->profile), cl->source, d->name, dc_profile_name(d->profile));
    return 0;
  }
  if (w && w->kind == DC_WAIVE_SKIP) {
    out->status = DC_SKIP;
    out->waived = 1;
    dc_fmt(out->reason, sizeof out->reason, "%s", w->reason);
    return 0;
  }
  /* requirements */
  uint32_t missing;
  const char* target_why = "no --target given";
  char twhy[256];
  int target_applies = 0;
  if (dc_run_target) {
    const char* k = dh_target_kind_name(dc_run_target);
    if (d->backend->target_kind && k && strcmp(d->backend->target_kind, k) == 0) {
      target_applies = 1;
    } else {
      dc_fmt(twhy, sizeof twhy, "target kind %s does not apply to backend %s (kind %s)",
               k ? k : "?", d->backend->name,
               d->backend->target_kind ? d->backend->target_kind : "none");
      target_why = twhy;
    }
  }
  missing = missing_needs(cl, d, target_applies);
  if (missing) {
    out->status = DC_SKIP;
    dc_fmt(out->reason, sizeof out->reason, "%s", need_reason(missing, d, target_why));
    return 0;
  }
  memset(a, 0, sizeof *a);
  a->ctx.dev.device_type = d->backend->device_type;
  a->ctx.dev.device_id = d->id;
  a->ctx.backend = d->backend;
  a->ctx.num_devices = d->count;
  a->ctx.target = target_applies ? dc_run_target : NULL;
  a->ctx.target_name = o->target_arg;
  a->ctx.clause = cl;
  a->ctx.profile = d->profile;
  return 1;
}

/* Fills *out from a child's answer (or its crash / timeout). Frees r->data. */
static void case_from_child(const dc_opts_t* o, dc_case_t* out, const case_arg_t* a, dh_child_result_t* r_) {
  dh_child_result_t r = *r_;
  {
    out->ms = r.ms;
    dc_fmt(out->err_tail, sizeof out->err_tail, "%s", r.err_tail);
    if (r.status == 0 && r.size == sizeof(dh_conf_ctx_t)) {
      memcpy(&out->r, r.data, sizeof out->r);
    } else {
      out->r = a->ctx;
      out->r.status = DC_FAIL;
      if (r.status == 0) dc_fmt(r.note, sizeof r.note, "crashed: exited without a result");
      dc_fmt(out->note, sizeof out->note, "%s", r.note);
      dc_fmt(out->r.message, sizeof out->r.message, "%s", r.note);
      dc_fmt(out->r.expected, sizeof out->r.expected, "a result within %d s", o->timeout_s);
      dc_fmt(out->r.got, sizeof out->r.got, "%s", r.note);
      dc_fmt(out->r.file, sizeof out->r.file, "%s", "(child process)");
    }
    free(r.data);
    r_->data = NULL;
  }
}

void dc_device_clean(dc_device_t* d) {
  dc_fmt(d->backend_name, sizeof d->backend_name, "%s", d->backend->name);
  dh_text_clean(d->backend_name, sizeof d->backend_name);
  dh_text_clean(d->name, sizeof d->name);
  dh_text_clean(d->reason, sizeof d->reason);
}

void dc_case_clean(dc_case_t* k) {
  dh_text_clean(k->reason, sizeof k->reason);
  dh_text_clean(k->note, sizeof k->note);
  dh_text_clean(k->r.message, sizeof k->r.message);
  dh_text_clean(k->r.expected, sizeof k->r.expected);
  dh_text_clean(k->r.got, sizeof k->r.got);
  dh_text_clean(k->r.file, sizeof k->r.file);
  dh_text_clean(k->r.details, sizeof k->r.details);
  dh_text_clean(k->err_tail, sizeof k->err_tail);
}

/* Applies xfail waivers and decides whether the case counts as a violation. */
static void case_finalize(const dc_opts_t* o, dc_case_t* out) {
  const dc_waiver_t* w = out->waiver;
  out->r.message[sizeof out->r.message - 1] = 0;
  out->r.expected[sizeof out->r.expected - 1] = 0;
  out->r.got[sizeof out->r.got - 1] = 0;
  out->r.file[sizeof out->r.file - 1] = 0;
  out->r.details[sizeof out->r.details - 1] = 0;
  out->status = out->r.status;
  if (out->status == DC_SKIP) dc_fmt(out->reason, sizeof out->reason, "%s", out->r.message);
  if (w && w->kind == DC_WAIVE_XFAIL) {
    out->todo = 1;
    out->waived = 1;
    dc_fmt(out->reason, sizeof out->reason, "%s", w->reason);
    if (out->status == DC_PASS && o->verify_xfails) {
      out->todo = 0;
      out->status = DC_FAIL;
      out->counts = 1;
      dc_fmt(out->r.message, sizeof out->r.message,
               "expected failure (xfail: %s) passed; remove the waiver (%s)", w->reason, w->origin);
      dc_fmt(out->r.expected, sizeof out->r.expected, "a failure (xfail waiver)");
      dc_fmt(out->r.got, sizeof out->r.got, "pass");
      dc_fmt(out->r.file, sizeof out->r.file, "%s", w->origin);
      out->r.line = 0;
    }
  } else if (out->status == DC_FAIL) {
    out->counts = 1;
  }
}

void dc_run_case(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t* cl, dc_case_t* out) {
  case_arg_t a;
  if (!case_prepare(o, d, cl, out, &a)) return;
  if (o->no_fork) {
    double t0 = dc_now_ms();
    execute(&a.ctx);
    out->ms = dc_now_ms() - t0;
    out->r = a.ctx;
  } else {
    dh_child_result_t r;
    dh_child_run(case_child, &a, o->timeout_s, &r);
    case_from_child(o, out, &a, &r);
  }
  case_finalize(o, out);
}


void dc_run_device_parallel(const dc_opts_t* o, const dc_device_t* d, const dh_clause_t** cl,
                            size_t ncl, dc_case_t* cases,
                            void (*on_done)(size_t k, void* user), void* user) {
  size_t nj = (size_t)o->jobs > 64 ? 64 : (size_t)o->jobs;
  dh_child_t jobs[64];
  case_arg_t args[64];
  size_t job_case[64];
  char* done = calloc(ncl ? ncl : 1, 1);
  if (!done) return;
  memset(jobs, 0, sizeof jobs);
  size_t next = 0, emitted = 0, active = 0;
  int alone = 0; /* a DC_RUN_ALONE case is running: start nothing beside it */
  while (emitted < ncl) {
    for (size_t slot = 0; slot < nj && next < ncl && !alone; slot++) {
      if (jobs[slot].active) continue;
      /* a DC_RUN_ALONE case waits until the running ones are done */
      if ((cl[next]->needs & DC_RUN_ALONE) && active > 0) break;
      while (next < ncl && !case_prepare(o, d, cl[next], &cases[next], &args[slot])) done[next++] = 1;
      if (next >= ncl) break;
      dh_child_start(&jobs[slot], case_child, &args[slot], o->timeout_s);
      job_case[slot] = next;
      if (!jobs[slot].active) { /* could not fork: report it as the case's failure */
        case_from_child(o, &cases[next], &args[slot], &jobs[slot].r);
        case_finalize(o, &cases[next]);
        done[next] = 1;
      } else {
        active++;
        alone = (cl[next]->needs & DC_RUN_ALONE) != 0;
      }
      next++;
    }
    while (emitted < ncl && done[emitted]) on_done(emitted++, user);
    if (emitted >= ncl) break;
    int i = dh_children_wait_any(jobs, nj);
    if (i < 0) continue;
    size_t k = job_case[i];
    active--;
    if (cl[k]->needs & DC_RUN_ALONE) alone = 0;
    case_from_child(o, &cases[k], &args[i], &jobs[i].r);
    case_finalize(o, &cases[k]);
    done[k] = 1;
  }
  free(done);
}
