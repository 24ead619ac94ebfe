/*
 * module/reference.c — the reference module.results compares with: the same call on
 * another device (--reference DEVICE), the same function of another library
 * (--reference-lib LIB.so[@DEVICE]), or a NumPy function of the same name
 * (--reference-py FILE.py) run by module/module_ref.py in the project venv, the
 * tensors exchanged as raw buffers described by a JSON manifest (jansson). Run in the
 * case's child. Calls args.c and cases.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tvm/ffi/c_api.h>

#include "cmdline/script.h"
#include "module/check.h"

/* The same function of t->ref.path (or the checked library) on t->ref.dev. */
static int run_native(const dm_target_t* t, const dm_call_t* c, const dm_layout_t* l, const dm_args_t* a,
                      uint8_t* const* in, uint8_t** out) {
  dm_call_t r = *c;
  dm_args_t ra;
  char dev[64];
  const char* lib = t->ref.kind == DM_REF_LIB ? t->ref.path : t->path;
  dh_device_format(t->ref.dev, dev, sizeof dev);
  if (dh_module_load(lib, &r.mod) != 0) return dh_error_prefix("reference %s", lib);
  if (dh_module_get_function(r.mod, c->f.name, &r.fn) != 0)
    return dh_error_clear(), dh_error_set(DH_KIND_VALUE_ERROR, "reference %s has no function %s", lib, c->f.name);
  dm_layout_t rl = *l;
  if (rl.pad && !rl.pad_as_offset) rl.pad_as_offset = 1; /* any device: the same bytes at the same places */
  if (dm_args_make(&r.f, t->ref.dev, &rl, (dm_scalar_t){1, 1.0}, &ra) != 0)
    return dm_args_free(&ra), dh_error_prefix("reference %s on %s: arguments", lib, dev);
  int rc = 0;
  for (int i = 0; i < ra.n && rc == 0; i++)
    if (ra.data[i] != NULL && ra.data_bytes[i] == a->data_bytes[i]) rc = dm_args_write(&ra, i, in[i]);
  dh_any_t rv = dh_any_none();
  if (rc == 0 && (rc = dh_func_call(&r.fn, ra.v, ra.n, &rv)) != 0) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", dh_error_message());
    char* nl = strchr(msg, '\n');
    if (nl) *nl = '\0';
    dh_error_clear();
    dh_error_set(DH_KIND_VALUE_ERROR, "reference %s on %s: %s raised %s", lib, dev, c->f.name, msg);
  } else if (rc == 0) {
    dh_any_release(&rv);
    rc = dm_settle(t->ref.dev);
  }
  for (int i = 0; i < ra.n && rc == 0; i++)
    if (ra.data[i] != NULL) rc = dm_args_read(&ra, i, &out[i]);
  dm_args_free(&ra);
  return rc;
}

/* The manifest module_ref.py reads: the file, the function, each argument. */
static json_t* manifest(const dm_target_t* t, const dm_call_t* c, const dm_args_t* a) {
  json_t* args = json_array();
  for (int i = 0; i < a->n; i++) {
    json_t* x = json_object();
    if (a->data[i] != NULL) {
      char dt[32], file[32];
      json_t* shape = json_array();
      for (int d = 0; d < a->t[i].ndim; d++) json_array_append_new(shape, json_integer(a->shape[i][d]));
      snprintf(file, sizeof file, "t%d.bin", i);
      json_object_set_new(x, "tensor", json_string(file));
      json_object_set_new(x, "dtype", json_string(dh_dtype_format(a->t[i].dtype, dt, sizeof dt)));
      json_object_set_new(x, "shape", shape);
      json_object_set_new(x, "offset", json_integer((json_int_t)a->pad[i]));
    } else if (a->v[i].type_index == kTVMFFIFloat) {
      json_object_set_new(x, "float", json_real(a->v[i].v_float64));
    } else if (a->v[i].type_index == kTVMFFIBool) {
      json_object_set_new(x, "bool", json_boolean(a->v[i].v_int64));
    } else {
      json_object_set_new(x, "int", json_integer(a->v[i].v_int64));
    }
    json_array_append_new(args, x);
  }
  /* by the name the function prints itself (TVM's `main` is its module's function) */
  const char* name = c->f.has_sig && c->f.sig_name[0] ? c->f.sig_name : c->f.name;
  return json_pack("{s:s, s:s, s:o}", "file", t->ref.path, "function", name, "args", args);
}

static int write_file(const char* dir, const char* name, const void* data, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  int ok = f != NULL && fwrite(data, 1, n, f) == n;
  if (f != NULL && fclose(f) != 0) ok = 0;
  return ok ? 0 : dh_error_set(DH_KIND_RUNTIME_ERROR, "cannot write %s", path);
}

/* The whole of dir/name, malloc'd (*n bytes); NULL when unreadable. */
static uint8_t* read_file(const char* dir, const char* name, size_t* n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  uint8_t* buf = NULL;
  long size = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)size + 1)) != NULL && fread(buf, 1, (size_t)size, f) != (size_t)size)
    free(buf), buf = NULL;
  if (f != NULL) fclose(f);
  *n = buf ? (size_t)size : 0;
  if (buf) buf[*n] = '\0';
  return buf;
}

static void remove_dir(const char* dir, int n) {
  char path[512];
  static const char* const fixed[] = {"manifest.json", "error.txt"};
  for (size_t k = 0; k < 2; k++) snprintf(path, sizeof path, "%s/%s", dir, fixed[k]), unlink(path);
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/t%d.bin", dir, i), unlink(path);
    snprintf(path, sizeof path, "%s/t%d.out.bin", dir, i), unlink(path);
  }
  rmdir(dir);
}

/* Runs module_ref.py on dir; reads each tensor's result back. */
static int run_script(const dm_target_t* t, const dm_call_t* c, const dm_args_t* a, const char* dir, uint8_t** out) {
  static const dh_cmdline_script_t script = {"module check", "DEVHARNESS_MODULE_REF_PY", "module_ref.py", 1};
  char* argv[] = {"module_ref.py", (char*)dir, NULL};
  int status = dh_cmdline_run_script(&script, 2, argv);
  size_t n;
  if (status != 0) {
    char* err = (char*)read_file(dir, "error.txt", &n);
    char* nl = err ? strchr(err, '\n') : NULL;
    if (nl) *nl = '\0';
    if (err && *err) dh_error_set(DH_KIND_VALUE_ERROR, "reference %s", err); /* it names the file */
    else dh_error_set(DH_KIND_VALUE_ERROR, "reference %s: module_ref.py failed (exit status %d)", t->ref.path, status);
    return free(err), -1;
  }
  for (int i = 0; i < a->n; i++) {
    char name[32];
    if (a->data[i] == NULL) continue;
    snprintf(name, sizeof name, "t%d.out.bin", i);
    out[i] = read_file(dir, name, &n);
    if (out[i] == NULL || n != a->data_bytes[i])
      return dh_error_set(DH_KIND_VALUE_ERROR, "reference %s: %s: tensor %d came back with %zu bytes, not %zu",
                          t->ref.path, c->f.name, i, n, a->data_bytes[i]);
  }
  return 0;
}

static int run_python(const dm_target_t* t, const dm_call_t* c, const dm_args_t* a, uint8_t* const* in, uint8_t** out) {
  char dir[] = "/tmp/devharness-ref.XXXXXX";
  if (mkdtemp(dir) == NULL) return dh_error_set(DH_KIND_RUNTIME_ERROR, "cannot make a folder for the reference");
  json_t* m = manifest(t, c, a);
  char* text = m ? json_dumps(m, JSON_COMPACT) : NULL;
  json_decref(m);
  int rc = text ? write_file(dir, "manifest.json", text, strlen(text)) : dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  free(text);
  for (int i = 0; i < a->n && rc == 0; i++) {
    char name[32];
    snprintf(name, sizeof name, "t%d.bin", i);
    if (a->data[i] != NULL) rc = write_file(dir, name, in[i], a->data_bytes[i]);
  }
  if (rc == 0) rc = run_script(t, c, a, dir, out);
  remove_dir(dir, a->n);
  return rc;
}

int dm_reference_run(const dm_target_t* t, const dm_call_t* c, const dm_layout_t* l, const dm_args_t* a,
                     uint8_t* const* in, uint8_t** out) {
  if (t->ref.kind == DM_REF_PY) return run_python(t, c, a, in, out);
  return run_native(t, c, l, a, in, out);
}
