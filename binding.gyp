{
  "variables": {
    "tp_cuda%": "false",
    "tp_cuda_objects%": "",
    "tp_cuda_lib_dir%": ""
  },
  "targets": [
    {
      "target_name": "tensorplan_native",
      "sources": [
        "<!@(node scripts/list-sources.mjs)",
        "cuda/addon/addon.cpp",
        "cuda/addon/abi_marshal.cpp",
        "cuda/addon/cuda_execute_abi.cpp",
        "cuda/device/cuda_unavailable.cpp",
        "cuda/execute/cuda_executor_stub.cpp",
        "cuda/build/gen/abi_wrappers.gen.cpp"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "core-cpp/include",
        "core-cpp/src",
        "cuda"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-Wno-cast-function-type"],
      "cflags_cc!": ["-std=gnu++17", "-std=gnu++20", "-fno-rtti"],
      "conditions": [
        ["tp_cuda=='true'", {
          "defines": ["TP_WITH_CUDA"],
          "libraries": [
            "<@(tp_cuda_objects)",
            "<(tp_cuda_lib_dir)/libcudart_static.a",
            "-ldl", "-lrt", "-lpthread"
          ]
        }]
      ]
    }
  ]
}
