# wgmma and setmaxnreg (kernels/common/wgmma/) exist only in sm_90a code, which runs on compute capability
# 9.0 alone. A target that uses them builds the architecture list with 90 written as 90a (the other
# architectures as they are) and, where the list has 90, is told so by FLA_BENCH_SM90A; elsewhere its
# wgmma paths trap and the host does not launch them.
set(FLA_BENCH_SM90A_ARCHITECTURES "")
foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(arch MATCHES "^90(-real|-virtual)?$")
    string(REGEX REPLACE "^90" "90a" arch "${arch}")
  endif()
  list(APPEND FLA_BENCH_SM90A_ARCHITECTURES "${arch}")
endforeach()
set(FLA_BENCH_HAS_SM90A OFF)
if(NOT FLA_BENCH_SM90A_ARCHITECTURES STREQUAL CMAKE_CUDA_ARCHITECTURES)
  set(FLA_BENCH_HAS_SM90A ON)
endif()

function(flabench_build_for_sm90a target)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${FLA_BENCH_SM90A_ARCHITECTURES}")
  if(FLA_BENCH_HAS_SM90A)
    target_compile_definitions(${target} PRIVATE FLA_BENCH_SM90A)
  endif()
endfunction()
