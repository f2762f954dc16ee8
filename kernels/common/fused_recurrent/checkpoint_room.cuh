// rwkv7's saving forward's checkpoints and a^T S_{t-1} through shared memory, at 16 keys a lane where the
// checkpoints fall at chunk starts only (launch_forward's rule, checkpoint_room_pays). There a checkpoint is
// 16 global stores a lane into a [K, V] state, V floats apart: all at once they held the scan (stall_lg,
// version 27), in bursts between tokens they and a^T S's per-token store cost the saving forward 13% over the
// plain one at 2,16384,16,128 (stop 68's ncu; kernels/notes/fused_recurrent.md, version 83). Here each lane
// writes its keys into the block's key rows in shared memory at a checkpointed chunk's start, the chunk's
// barrier orders the writes, and the block sends the rows out in 16-byte pieces, whole 128-byte lines of a
// row at a time (two buffers: a buffer is written again only two barriers after its reads). a^T S goes into a
// [tokens, columns] tile that each warp writes out with its outputs at the chunk's end.
#pragma once

#include <cstdint>

#include "kernels/common/fused_recurrent/column_record.h"

namespace flabench::fused {

// The room: where a lane leaves its keys of a checkpoint, and the block's copies of a buffer's rows.
struct CheckpointRoom {
  float* buffers;  // buffer 0; buffer 1 at buffer_floats
  float* sa;       // a^T S's tile: [column_tokens][block_columns]
  int buffer_floats;

  __device__ CheckpointRoom(float* at, const Geometry& g)
      : buffers(at), sa(at + 2 * checkpoint_buffer_floats(g)), buffer_floats(checkpoint_buffer_floats(g)) {}

  // The lane's KPT keys of its CPL columns (first column `column` within the block) into buffer `which`.
  template <int KPT, int CPL>
  __device__ void write(int which, const float (&S)[CPL][KPT], int k0, int column, int block_columns) const {
    float* rows = buffers + which * buffer_floats + checkpoint_row_shift(k0, KPT, CPL) + column;
#pragma unroll
    for (int i = 0; i < KPT; ++i) {
      float* at = rows + (k0 + i) * block_columns;
      if constexpr (CPL == 2)
        *reinterpret_cast<float2*>(at) = make_float2(S[0][i], S[1][i]);
      else
        at[0] = S[0][i];
    }
  }

  // The block's threads: buffer `which`'s K rows into the [K, V] state at `state` (the block's first column
  // there), a float4 a thread at a time, a row's neighbours together.
  template <int KPT, int CPL>
  __device__ void send(int which, float* state, int K, int V, int block_columns) const {
    const float* rows = buffers + which * buffer_floats;
    const int quads = block_columns / 4, shift = __ffs(quads) - 1;  // a row's float4s (a power of two)
    for (int e = threadIdx.x; e < K * quads; e += blockDim.x) {
      const int row = e >> shift, q = e & (quads - 1);
      const float* from = rows + row * block_columns + checkpoint_row_shift(row, KPT, CPL) + 4 * q;
      const float4 x = *reinterpret_cast<const float4*>(from);
      *reinterpret_cast<float4*>(state + std::int64_t(row) * V + 4 * q) = x;
    }
  }
};

}  // namespace flabench::fused
