/* Fault: a per-thread workspace pool that predicts the caller repeats its last sequence
 * of requests. Request k of the live set is served from the k-th block it keeps when
 * that block is free and big enough; otherwise from the first free block that fits,
 * which it forgets to mark taken. Requests repeated in the same order (the common use,
 * and what mem.workspaces_distinct asks) behave; the same sizes in another order hand
 * one block to two live workspaces. Expected clause: mem.workspaces_reordered. */
#include "faulty.h"

#define WS_BLOCKS 64
typedef struct {
  void* ptr;
  size_t size;
  int32_t device_id;
  int free; /* 1 = kept in the pool, may be handed out */
} ws_block_t;
static _Thread_local ws_block_t blocks[WS_BLOCKS];
static _Thread_local int n_blocks, n_live;

static int order_alloc(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  int k = n_live;
  if (k < n_blocks && blocks[k].free && blocks[k].size >= nbytes && blocks[k].device_id == dev.device_id) {
    blocks[k].free = 0;
    n_live++;
    *out = blocks[k].ptr;
    return 0;
  }
  for (int i = 0; i < n_blocks; i++)
    if (blocks[i].free && blocks[i].size >= nbytes && blocks[i].device_id == dev.device_id) {
      n_live++; /* the slip: blocks[i].free stays 1 */
      *out = blocks[i].ptr;
      return 0;
    }
  if (dh_sim_backend.alloc_data_space(dev, nbytes, DH_TEMP_ALLOC_ALIGNMENT, hint, out) != 0) return -1;
  if (n_blocks < WS_BLOCKS) blocks[n_blocks++] = (ws_block_t){*out, nbytes, dev.device_id, 0};
  n_live++;
  return 0;
}

static int order_free(DLDevice dev, void* ptr) {
  for (int i = 0; i < n_blocks; i++)
    if (ptr != NULL && blocks[i].ptr == ptr && blocks[i].device_id == dev.device_id) {
      blocks[i].free = 1;
      if (n_live > 0) n_live--;
      return 0;
    }
  return dh_sim_backend.free_data_space(dev, ptr);
}

FAULTY_ENTRY("wsorder", (faulty.alloc_workspace = order_alloc, faulty.free_workspace = order_free))
