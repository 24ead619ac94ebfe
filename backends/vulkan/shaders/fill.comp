#version 450
// devharness vulkan backend: "fill" kernel. Writes pc.value to every 32-bit word
// dst.data[pc.first_word + i] for 0 <= i < pc.count_words (grid-stride loop, so any
// dispatch size covers any count). The buffer is bound as one storage buffer
// descriptor; byte offsets are applied through first_word (push constants).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) buffer Dst { uint data[]; } dst;
layout(push_constant) uniform Params {
  uint first_word;
  uint count_words;
  uint value;
  uint pad;
} pc;
void main() {
  uint stride = gl_NumWorkGroups.x * 64u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count_words; i += stride) {
    dst.data[pc.first_word + i] = pc.value;
  }
}
