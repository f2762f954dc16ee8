#include "kernels/common/fused_recurrent/forward.cuh"
#include "kernels/gla/gla.h"
#include "kernels/rwkv7/rwkv7.h"
namespace flabench::fused {
template __global__ void fused_recurrent_fwd_kernel<GlaForm, __nv_bfloat16, 8, 1, false, false>(Pointers<__nv_bfloat16>, Geometry, StagePlan, float*, float*);
template __global__ void fused_recurrent_fwd_kernel<Rwkv7Form, __nv_bfloat16, 16, 2, false, false>(Pointers<__nv_bfloat16>, Geometry, StagePlan, float*, float*);
}
