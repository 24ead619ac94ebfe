/*
 * base/type_schema.h — a tvm-ffi type schema as a signature. Part of base/ (static,
 * hidden). Thread-safe.
 */
#ifndef DEVHARNESS_BASE_TYPE_SCHEMA_H_
#define DEVHARNESS_BASE_TYPE_SCHEMA_H_

#include <stddef.h>

/* What devharness/function.h dh_type_schema_format documents: "(P, ...) -> R" for a
 * function schema, the type ("Optional[int]") for another, into buf (cut at cap). 0, or
 * -1 with a ValueError set when type_schema is NULL or not JSON, or buf is NULL / cap 0. */
int dh_schema_signature(const char* type_schema, char* buf, size_t cap);

#endif /* DEVHARNESS_BASE_TYPE_SCHEMA_H_ */
