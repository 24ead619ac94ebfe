/*
 * runtime/function.c — packed calls and the global function registry
 * (devharness/function.h). The registry is a name-sorted array searched by binary
 * search under a pthread rwlock (readers share, writers exclude).
 */
#include "devharness/function.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "internal.h"

typedef struct entry {
  char* name; /* owned */
  dh_function_t fn;
} entry_t;

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static entry_t* g_entries;
static size_t g_count, g_cap;

int dh_func_call(const dh_function_t* fn, const dh_any_t* args, int32_t num_args,
                 dh_any_t* out_result) {
  dh_any_t scratch;
  if (out_result == NULL) out_result = &scratch;
  /* None, field by field (a whole-struct copy of a temporary stalls store forwarding) */
  out_result->type_index = DH_TYPE_NONE;
  out_result->zero_padding = 0;
  out_result->v_uint64 = 0;
  if (fn == NULL || fn->call == NULL)
    return dh_error_set("ValueError", "dh_func_call: function is NULL");
  if (num_args < 0 || (num_args > 0 && args == NULL))
    return dh_error_set("ValueError", "dh_func_call: %d arguments but args is %s", (int)num_args,
                        args == NULL ? "NULL" : "set");
  dh__error_reset();
  int rc = fn->call(fn->self, args, num_args, out_result);
  if (rc == 0) return 0;
  if (dh_error_kind() == NULL)
    dh_error_set("InternalError", "function returned %d without an error", rc);
  return -1;
}

/* Index of the first entry >= name; *found set when equal. Caller holds the lock. */
static size_t find(const char* name, int* found) {
  size_t lo = 0, hi = g_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(g_entries[mid].name, name);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *found = 0;
  return lo;
}

int dh_func_register(const char* name, dh_function_t fn, int allow_override) {
  if (name == NULL || name[0] == '\0')
    return dh_error_set("ValueError", "dh_func_register: function name is %s",
                        name == NULL ? "NULL" : "empty");
  if (fn.call == NULL)
    return dh_error_set("ValueError", "dh_func_register: function %s has a NULL call", name);
  pthread_rwlock_wrlock(&g_lock);
  int found;
  size_t i = find(name, &found);
  if (found) {
    if (!allow_override) {
      pthread_rwlock_unlock(&g_lock);
      return dh_error_set("KeyError", "function %s is already registered", name);
    }
    g_entries[i].fn = fn;
    pthread_rwlock_unlock(&g_lock);
    return 0;
  }
  char* copy = strdup(name);
  if (copy == NULL) {
    pthread_rwlock_unlock(&g_lock);
    return dh_error_set("OutOfMemoryError", "dh_func_register: out of memory for %s", name);
  }
  if (g_count == g_cap) {
    size_t cap = g_cap ? g_cap * 2 : 64;
    entry_t* e = realloc(g_entries, cap * sizeof *e);
    if (e == NULL) {
      pthread_rwlock_unlock(&g_lock);
      free(copy);
      return dh_error_set("OutOfMemoryError", "dh_func_register: out of memory for %s", name);
    }
    g_entries = e;
    g_cap = cap;
  }
  memmove(&g_entries[i + 1], &g_entries[i], (g_count - i) * sizeof *g_entries);
  g_entries[i].name = copy;
  g_entries[i].fn = fn;
  g_count++;
  pthread_rwlock_unlock(&g_lock);
  return 0;
}

int dh_func_get(const char* name, dh_function_t* out_fn) {
  if (name == NULL) return dh_error_set("ValueError", "dh_func_get: function name is NULL");
  pthread_rwlock_rdlock(&g_lock);
  int found;
  size_t i = find(name, &found);
  if (found && out_fn != NULL) *out_fn = g_entries[i].fn;
  pthread_rwlock_unlock(&g_lock);
  if (!found) return dh_error_set("KeyError", "function %s is not registered", name);
  return 0;
}

int dh_func_remove(const char* name) {
  if (name == NULL) return dh_error_set("ValueError", "dh_func_remove: function name is NULL");
  pthread_rwlock_wrlock(&g_lock);
  int found;
  size_t i = find(name, &found);
  if (found) {
    free(g_entries[i].name);
    memmove(&g_entries[i], &g_entries[i + 1], (g_count - i - 1) * sizeof *g_entries);
    g_count--;
  }
  pthread_rwlock_unlock(&g_lock);
  if (!found) return dh_error_set("KeyError", "function %s is not registered", name);
  return 0;
}

size_t dh_func_list(void (*visit)(const char* name, void* user), void* user) {
  pthread_rwlock_rdlock(&g_lock);
  size_t n = g_count;
  if (visit != NULL)
    for (size_t i = 0; i < n; i++) visit(g_entries[i].name, user);
  pthread_rwlock_unlock(&g_lock);
  return n;
}
