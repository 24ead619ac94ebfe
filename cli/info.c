/*
 * cli/info.c — `devharness info [--json] [--device SPEC]`: every backend, why one is
 * unavailable, every device with every TVM attribute, and the host's hwloc topology.
 */
#include <getopt.h>
#include <hwloc.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/text.h"
#include "devharness/devharness.h"

/* printf format: the device-option group's usage, then its help (column 17). */
static const char kInfoUsage[] =
    "usage: devharness info [--json] [--device SPEC]%s\n"
    "                       [--quiet|--verbose]\n"
    "\n"
    "Lists every backend plugin (and why one is unavailable or was refused), every\n"
    "device, every DeviceAPI attribute (TVM DeviceAttrKind) and the host topology.\n"
    "  --json         machine-readable output on stdout\n"
    "  --device SPEC  only this device (e.g. sim:0)\n"
    "%s"
    "  -q, --quiet    only the verdict line, 'devharness info: B backends, D devices, U\n"
    "                 without a device, R plugins refused (exit E)' (errors on stderr)\n"
    "  -v, --verbose  the listing, then the verdict line (text: on stdout; --json: on\n"
    "                 stderr, so stdout stays JSON)\n"
    "exit: 0 ok, 2 usage error or unknown device, 3 no device: the backend --device names\n"
    "      has none (shown with the reason)\n";

static const struct {
  uint32_t bit;
  const char* name;
} kCaps[] = {
    {DH_CAP_SINGLE_QUEUE, "single_queue"},
    {DH_CAP_HOST_POINTER_ARITHMETIC, "host_pointer_arithmetic"},
    {DH_CAP_ASYNC_COPY, "async_copy"},
    {DH_CAP_EVENT_TIMING, "event_timing"},
    {DH_CAP_PINNED_HOST, "pinned_host"},
};

/* Host topology from hwloc: packages, cores, PUs, NUMA nodes and their memory. */
static json_t* host_topology(void) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return json_null();
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return json_null();
  }
  json_t* host = json_object();
  json_object_set_new(host, "packages",
                      json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE)));
  json_object_set_new(host, "cores", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)));
  json_object_set_new(host, "pus", json_integer(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)));
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  const char* model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
  if (model) json_object_set_new(host, "cpu_model", json_string(model));
  json_t* numa = json_array();
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
    char cpus[256];
    hwloc_bitmap_list_snprintf(cpus, sizeof cpus, node->cpuset);
    json_array_append_new(numa, json_pack("{s:i, s:I, s:s}", "os_index", (int)node->os_index,
                                          "memory_bytes", (json_int_t)node->attr->numanode.local_memory,
                                          "cpus", cpus));
  }
  json_object_set_new(host, "numa_nodes", numa);
  hwloc_topology_destroy(topo);
  return host;
}

static json_t* any_to_json(const dh_any_t* v) {
  switch (v->type_index) {
    case DH_TYPE_INT: return json_integer(v->v_int64);
    case DH_TYPE_BOOL: return json_boolean(v->v_int64);
    case DH_TYPE_FLOAT: return json_real(v->v_float64);
    case DH_TYPE_RAW_STR: return json_string(v->v_c_str ? v->v_c_str : "");
    case DH_TYPE_NONE: return json_null();
    default: {
      char buf[64];
      snprintf(buf, sizeof buf, "<%s>", dh_type_index_name(v->type_index));
      return json_string(buf);
    }
  }
}

/* The vendor identity result bundles key the device by (docs/results.md "Device
 * identity"): the PCI bus id of the backend's optional pci_bus_id function
 * (DH_FUNC_PCI_BUS_ID), null when it has none or says ""; no backend reports a UUID
 * yet (null). */
static json_t* identity_json(DLDevice dev) {
  dh_any_t arg = dh_any_device(dev), rv = dh_any_none();
  dh_byte_array_t s;
  json_t* pci = json_null();
  if (dh_device_call(dev, DH_FUNC_PCI_BUS_ID, &arg, 1, &rv) == 0 && dh_any_as_str(&rv, &s) == 0 && s.size > 0 &&
      s.size < 64)
    pci = json_stringn(s.data, s.size);
  dh_error_clear();
  return json_pack("{s:o, s:n}", "pci_bus_id", pci, "uuid");
}

static json_t* device_json(DLDevice dev) {
  json_t* d = json_object();
  char spec[64];
  json_object_set_new(d, "spec", json_string(dh_device_format(dev, spec, sizeof spec)));
  json_object_set_new(d, "id", json_integer(dev.device_id));
  json_t* attrs = json_object();
  json_t* errors = json_object();
  for (int32_t k = 1; k < DH_ATTR_KIND_COUNT; ++k) {
    dh_any_t v = dh_any_none();
    if (dh_device_get_attr(dev, (dh_attr_kind_t)k, &v) != 0) {
      json_object_set_new(errors, dh_attr_kind_name(k), json_string(dh_error_message()));
      continue;
    }
    json_object_set_new(attrs, dh_attr_kind_name(k), any_to_json(&v));
  }
  json_object_set_new(d, "attributes", attrs);
  json_object_set_new(d, "identity", identity_json(dev));
  /* Vulkan's api_version is the device's apiVersion packed as VK_MAKE_API_VERSION
   * (variant:3 major:7 minor:10 patch:12 bits): also give it as "major.minor.patch". */
  json_t* api = json_object_get(attrs, "api_version");
  if (dev.device_type == kDLVulkan && json_is_integer(api)) {
    uint32_t v = (uint32_t)json_integer_value(api);
    char text[48];
    snprintf(text, sizeof text, "%u.%u.%u", (v >> 22) & 0x7Fu, (v >> 12) & 0x3FFu, v & 0xFFFu);
    json_object_set_new(d, "api_version_text", json_string(text));
  }
  if (json_object_size(errors) > 0) {
    json_object_set_new(d, "attribute_errors", errors);
  } else {
    json_decref(errors);
  }
  return d;
}

/* TVM's Vulkan order: a stable sort by device type, discrete, integrated, virtual, cpu,
 * other (apache/tvm 5d4dc87 src/backend/vulkan/runtime/vulkan_device_api.cc:56-76), from the
 * vulkan backend's "device_type" target property. -1 when a device does not say. */
static int vulkan_rank(DLDevice dev) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_target_property(dev, "device_type", &v) != 0 || v.type_index != DH_TYPE_RAW_STR) {
    dh_error_clear();
    return -1;
  }
  static const char* const order[] = {"discrete", "integrated", "virtual", "cpu"};
  for (int i = 0; i < 4; ++i)
    if (strstr(v.v_c_str, order[i])) return i;
  return 4;
}

/* TVM's index of device `id` among `count` devices of backend b, or -1 when unknown:
 * tvm-* backends use TVM's numbering; vulkan is re-sorted as TVM does; others (opencl:
 * TVM keeps only GPUs when there is one, which the backend does not report) unknown. */
static int tvm_index(const dh_backend_t* b, int id, int count) {
  if (strncmp(b->name, "tvm-", 4) == 0) return id;
  if (strcmp(b->name, "vulkan") != 0) return -1;
  int mine = vulkan_rank((DLDevice){(DLDeviceType)b->device_type, id});
  if (mine < 0) return -1;
  int index = 0;
  for (int other = 0; other < count; ++other) {
    if (other == id) continue;
    int r = vulkan_rank((DLDevice){(DLDeviceType)b->device_type, other});
    if (r < 0) return -1;
    if (r < mine || (r == mine && other < id)) index++;
  }
  return index;
}

/* The backend's module functions as tvm-ffi sees them: "<backend>.<name>", its
 * signature from the type schema of its metadata (null when it has none). */
static json_t* functions_json(const dh_backend_t* b) {
  json_t* fns = json_array();
  for (size_t i = 0; i < b->num_functions; i++) {
    char key[256], sig[512];
    snprintf(key, sizeof key, "%s.%s", b->name, b->functions[i].name);
    char* meta = NULL;
    json_t* schema = NULL;
    if (dh_func_get_metadata(key, &meta) == 0 && meta[0] != '\0') {
      json_t* m = json_loads(meta, 0, NULL);
      const char* ts = json_string_value(json_object_get(m, "type_schema"));
      if (ts != NULL && dh_type_schema_format(ts, sig, sizeof sig) == 0) schema = json_string(sig);
      json_decref(m);
    }
    dh_error_clear();
    free(meta);
    json_array_append_new(fns, json_pack("{s:s, s:o}", "name", key, "signature", schema ? schema : json_null()));
  }
  return fns;
}

/* The backend's entry in info: identity, caps, availability and its selected devices. */
static json_t* backend_json(const dh_backend_t* b, const dh_device_list_t* sel) {
  json_t* j = json_object();
  json_object_set_new(j, "name", json_string(b->name));
  json_object_set_new(j, "description", b->description ? json_string(b->description) : json_null());
  json_object_set_new(j, "device_type", json_integer(b->device_type));
  json_object_set_new(j, "device_type_name", json_string(dh_device_type_name(b->device_type)));
  json_object_set_new(j, "target_kind", b->target_kind ? json_string(b->target_kind) : json_null());
  /* init first: a backend with query_caps (backend.h ABI 1.5) has its caps found then */
  const char* reason = dh_backend_unavailable_reason(b);
  json_t* caps = json_array();
  for (size_t i = 0; i < sizeof kCaps / sizeof kCaps[0]; ++i) {
    if (dh_device_caps(b) & kCaps[i].bit) json_array_append_new(caps, json_string(kCaps[i].name));
  }
  json_object_set_new(j, "caps", caps);
  json_object_set_new(j, "raw_twin", b->raw && b->raw->api_name ? json_string(b->raw->api_name) : json_null());
  json_object_set_new(j, "functions", functions_json(b));
  json_object_set_new(j, "available", json_boolean(reason == NULL));
  json_object_set_new(j, "unavailable_reason", reason ? json_string(reason) : json_null());
  json_t* devices = json_array();
  for (size_t i = 0; i < sel->count; ++i) {
    const dh_device_entry_t* e = &sel->entries[i];
    if (e->backend != b) continue;
    if (e->device.device_id < 0) {
      /* available, yet no device because its device_count entry failed: say so */
      if (reason == NULL && strncmp(e->reason, "device_count failed", 19) == 0)
        json_object_set_new(j, "device_count_error", json_string(e->reason));
      continue;
    }
    json_t* dj = device_json(e->device);
    int ti = tvm_index(b, e->device.device_id, e->device_count);
    json_object_set_new(dj, "tvm_index", ti >= 0 ? json_integer(ti) : json_null());
    json_array_append_new(devices, dj);
  }
  json_object_set_new(j, "devices", devices);
  return j;
}

static void print_text(json_t* root) {
  json_t* host = json_object_get(root, "host");
  printf("devharness %s (plugin ABI %s)\n", json_string_value(json_object_get(root, "version")),
         json_string_value(json_object_get(root, "plugin_abi")));
  if (json_is_object(host)) {
    printf("host: %s; %lld package(s), %lld core(s), %lld PU(s)\n",
           json_string_value(json_object_get(host, "cpu_model")) ?: "unknown CPU",
           (long long)json_integer_value(json_object_get(host, "packages")),
           (long long)json_integer_value(json_object_get(host, "cores")),
           (long long)json_integer_value(json_object_get(host, "pus")));
    size_t i;
    json_t* node;
    json_array_foreach(json_object_get(host, "numa_nodes"), i, node) {
      printf("  NUMA node %lld: %.1f GiB, cpus %s\n",
             (long long)json_integer_value(json_object_get(node, "os_index")),
             (double)json_integer_value(json_object_get(node, "memory_bytes")) / (1 << 30),
             json_string_value(json_object_get(node, "cpus")));
    }
  }
  size_t i;
  json_t* b;
  json_array_foreach(json_object_get(root, "backends"), i, b) {
    printf("\nbackend %s (device type %s = %lld)%s%s\n", json_string_value(json_object_get(b, "name")),
           json_string_value(json_object_get(b, "device_type_name")),
           (long long)json_integer_value(json_object_get(b, "device_type")),
           json_is_string(json_object_get(b, "description")) ? ": " : "",
           json_string_value(json_object_get(b, "description")) ?: "");
    printf("  caps:");
    size_t c;
    json_t* cap;
    json_array_foreach(json_object_get(b, "caps"), c, cap) printf(" %s", json_string_value(cap));
    printf("%s\n", json_array_size(json_object_get(b, "caps")) ? "" : " none");
    json_t* fn;
    if (json_array_size(json_object_get(b, "functions"))) printf("  functions:\n");
    json_array_foreach(json_object_get(b, "functions"), c, fn) {
      const char* sig = json_string_value(json_object_get(fn, "signature"));
      printf("    %-26s %s\n", json_string_value(json_object_get(fn, "name")), sig ? sig : "(no type schema)");
    }
    if (!json_is_true(json_object_get(b, "available"))) {
      printf("  unavailable: %s\n", json_string_value(json_object_get(b, "unavailable_reason")));
      continue;
    }
    size_t d;
    json_t* dev;
    json_array_foreach(json_object_get(b, "devices"), d, dev) {
      json_t* ti = json_object_get(dev, "tvm_index");
      if (json_is_integer(ti))
        printf("  %s (TVM's index %lld)\n", json_string_value(json_object_get(dev, "spec")),
               (long long)json_integer_value(ti));
      else
        printf("  %s\n", json_string_value(json_object_get(dev, "spec")));
      const char* key;
      json_t* val;
      json_object_foreach(json_object_get(dev, "attributes"), key, val) {
        char* text = json_is_string(val) ? NULL : json_dumps(val, JSON_ENCODE_ANY);
        const char* decoded = strcmp(key, "api_version") == 0
                                  ? json_string_value(json_object_get(dev, "api_version_text"))
                                  : NULL;
        if (decoded)
          printf("    %-28s %s (%s)\n", key, decoded, text ? text : "");
        else
          printf("    %-28s %s\n", key, text ? text : json_string_value(val));
        free(text);
      }
      json_object_foreach(json_object_get(dev, "attribute_errors"), key, val) {
        printf("    %-28s ERROR: %s\n", key, json_string_value(val));
      }
    }
  }
  json_t* refused = json_object_get(root, "refused_plugins");
  if (json_array_size(refused) > 0) {
    printf("\nrefused plugins:\n");
    json_t* r;
    json_array_foreach(refused, i, r) printf("  %s\n", json_string_value(r));
  }
}

/* --quiet / --verbose: "devharness info: B backends, D devices, U without a device, R
 * plugins refused (exit E)". */
static void say_verdict(json_t* root, FILE* f, int rc) {
  size_t nb = json_array_size(json_object_get(root, "backends")), nd = 0, nu = 0, i;
  json_t* b;
  json_array_foreach(json_object_get(root, "backends"), i, b) {
    size_t n = json_array_size(json_object_get(b, "devices"));
    nd += n;
    nu += n == 0;
  }
  size_t nr = json_array_size(json_object_get(root, "refused_plugins"));
  fprintf(f, "devharness info: %zu backend%s, %zu device%s, %zu without a device, %zu plugin%s refused (exit %d)\n",
          nb, nb == 1 ? "" : "s", nd, nd == 1 ? "" : "s", nu, nr, nr == 1 ? "" : "s", rc);
}

int dh_cli_info(int argc, char** argv) {
  int as_json = 0, quiet = 0, verbose = 0;
  const char* device_spec = NULL;
  static const struct option kOpts[] = {{"json", no_argument, NULL, 'j'},
                                        {"quiet", no_argument, NULL, 'q'},
                                        {"verbose", no_argument, NULL, 'v'},
                                        {"device", required_argument, NULL, 'd'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  struct option opts[sizeof kOpts / sizeof kOpts[0] + DH_CMDLINE_MAX_DEVICE_OPTIONS];
  dh_cmdline_device_options_load();
  dh_cmdline_options_with_devices(kOpts, opts, sizeof opts / sizeof opts[0]);
  dh_cmdline_getopt_begin();
  int c, rc = DH_EXIT_OK;
  while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
    switch (c) {
      case 'j': as_json = 1; break;
      case 'q': quiet = 1; break;
      case 'v': verbose = 1; break;
      case 'd':
        if (dh_cmdline_set_once("info", "--device", &device_spec, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
        break;
      case 'h': printf(kInfoUsage, dh_cmdline_device_options_usage(), dh_cmdline_device_options_help(17)); return DH_EXIT_OK;
      default:
        if (!dh_cmdline_device_option("info", c, optarg, &rc)) return dh_cmdline_bad_option("info", opts, argc, argv);
        if (rc != DH_EXIT_OK) return rc;
    }
  }
  if (dh_cmdline_no_operands("info", argc, argv) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (quiet && verbose) return dh_cmdline_usage_error("info", "--quiet and --verbose exclude each other");
  dh_cmdline_device_options_end(); /* the backends the values name are found now */
  dh_device_list_t sel;
  dh_device_select_params_t params = {.spec = device_spec};
  if (dh_cmdline_select_devices("info", &params, &sel) != DH_EXIT_OK) return DH_EXIT_USAGE;
  const dh_backend_t* only_backend = device_spec ? sel.entries[0].backend : NULL;
  json_t* root = json_object();
  json_object_set_new(root, "version", json_string(DH_VERSION_STRING));
  char abi[32];
  snprintf(abi, sizeof abi, "%d.%d", DH_BACKEND_ABI_MAJOR, DH_BACKEND_ABI_MINOR);
  json_object_set_new(root, "plugin_abi", json_string(abi));
  json_object_set_new(root, "host", host_topology());
  json_t* backends = json_array();
  for (size_t i = 0; i < dh_backend_count(); ++i) {
    const dh_backend_t* b = dh_backend_at(i);
    if (only_backend && b != only_backend) continue;
    json_array_append_new(backends, backend_json(b, &sel));
  }
  json_object_set_new(root, "backends", backends);
  json_t* refused = json_array();
  for (size_t i = 0; i < dh_plugin_refusal_count(); ++i) {
    json_array_append_new(refused, json_string(dh_plugin_refusal(i)));
  }
  json_object_set_new(root, "refused_plugins", refused);
  if (quiet) {
  } else if (as_json) {
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
  } else {
    print_text(root);
  }
  /* the backend --device names has no device: shown with its reason, and exit 3 */
  rc = device_spec && sel.entries[0].device.device_id < 0 ? DH_EXIT_NO_DEVICE : DH_EXIT_OK;
  if (quiet || verbose) say_verdict(root, quiet || !as_json ? stdout : stderr, rc);
  json_decref(root);
  dh_device_list_free(&sel);
  dh_plugins_unload_all();
  return rc;
}
