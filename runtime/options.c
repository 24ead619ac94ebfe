/*
 * runtime/options.c — the configuration channel of ABI 1.6 (devharness/device_api.h
 * "Backend options"; a backend's side: backend.h dh_backend_t.options, set_option).
 *
 * State: the window's flag is the loader's (runtime/plugin.c, which also refuses an
 * option name two plugins declare); per slot (runtime/internal.h), whether its
 * more_backends is held back and which of its options were given a value. Listing is lock-free over the published slots, as
 * dh_backend_at is; giving a value and closing the window take the loader's lock, so
 * set_option is serialised with loading and runs before more_backends and init.
 */
#include <string.h>

#include "internal.h"

void dh_backend_options_open(void) { dh__options_window_set(1); }

void dh_backend_options_close(void) {
  dh__load_lock();
  dh__options_window_set(0);
  size_t n = dh_backend_count(); /* the slots more_backends adds are never held */
  for (size_t i = 0; i < n; i++) {
    dh__slot* s = dh__slot_of(dh_backend_at(i));
    if (s == NULL || !s->held) continue;
    s->held = 0;
    dh__load_more(s);
  }
  dh__load_unlock();
}

size_t dh_backend_option_count(void) {
  size_t total = 0;
  for (size_t i = 0, n = dh_backend_count(); i < n; i++) total += dh_backend_at(i)->num_options;
  return total;
}

const dh_backend_option_t* dh_backend_option_at(size_t k, const dh_backend_t** out_backend) {
  if (out_backend) *out_backend = NULL;
  for (size_t i = 0, n = dh_backend_count(); i < n; i++) {
    const dh_backend_t* b = dh_backend_at(i);
    if (k < b->num_options) {
      if (out_backend) *out_backend = b;
      return &b->options[k];
    }
    k -= b->num_options;
  }
  return NULL;
}

/* The loaded slot declaring option `name` and the option's index there, or NULL. */
static dh__slot* owner_of(const char* name, size_t* out_index) {
  for (size_t i = 0, n = dh_backend_count(); i < n; i++) {
    const dh_backend_t* b = dh_backend_at(i);
    for (size_t j = 0; j < b->num_options; j++)
      if (strcmp(b->options[j].name, name) == 0) {
        *out_index = j;
        return dh__slot_of(b);
      }
  }
  return NULL;
}

/* The checks of dh_backend_option_set before set_option runs; caller holds the
 * loader's lock. 0, or -1 with the error. */
static int check_give(const char* name, dh__slot* s, size_t j) {
  if (s == NULL) return dh_error_set(DH_KIND_KEY_ERROR, "no loaded backend declares option --%s", name);
  if (!s->held || atomic_load_explicit(&s->init_state, memory_order_acquire) != 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR,
                        "backend '%s' is configured already: its options are given while the options window is "
                        "open, before it loaded (dh_backend_options_open)", s->backend.name);
  if ((s->options_given & (1u << j)) && !(s->backend.options[j].flags & DH_BACKEND_OPTION_REPEATABLE))
    return dh_error_set(DH_KIND_VALUE_ERROR, "given twice, it takes one value");
  return 0;
}

int dh_backend_option_set(const char* name, const char* value) {
  if (name == NULL || value == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_backend_option_set: %s is NULL", name ? "value" : "name");
  dh__load_lock();
  size_t j = 0;
  dh__slot* s = owner_of(name, &j);
  int rc = check_give(name, s, j);
  if (rc == 0) {
    dh_error_clear();
    rc = s->backend.set_option(s->backend.options[j].name, value) == 0 ? 0 : -1;
    if (rc != 0 && dh_error_kind() == NULL)
      dh_error_set(DH_KIND_RUNTIME_ERROR, "%s: set_option returned -1 without an error", s->backend.name);
    if (rc == 0) s->options_given |= 1u << j;
  }
  dh__load_unlock();
  return rc;
}
