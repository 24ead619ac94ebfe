/*
 * devharness/devharness.h — umbrella header and version.
 * Includes every public header. The library version follows semantic versioning;
 * the plugin ABI has its own version (devharness/backend.h).
 */
#ifndef DEVHARNESS_DEVHARNESS_H_
#define DEVHARNESS_DEVHARNESS_H_

#define DH_VERSION_MAJOR 0
#define DH_VERSION_MINOR 1
#define DH_VERSION_PATCH 0
#define DH_VERSION_STRING "0.1.0"

#include "devharness/any.h"
#include "devharness/backend.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/function.h"
#include "devharness/module.h"
#include "devharness/target.h"
#include "devharness/tensor.h"

#endif /* DEVHARNESS_DEVHARNESS_H_ */
