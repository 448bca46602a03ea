#!/usr/bin/env bash
# Builds DJL's PyTorch bridge (libdjl_torch.so) from DJL's own source against the libtorch of a Python
# install of PyTorch, as DJL's engines/pytorch/pytorch-native/build.sh does it (CMake, the JNI header
# from javac -h, USE_CUDA for a CUDA build), then puts it beside that libtorch, where DJL's LibUtils
# looks first when PYTORCH_LIBRARY_PATH names that folder.
#   build-bridge.sh SRC INCLUDE BUILD [PYTHON]
#     SRC      DJL's source at the tag of the engine in use (engines/pytorch/pytorch-native, api/src/main/native)
#     INCLUDE  jni.h, jni_md.h and ai_djl_pytorch_jni_PyTorchLibrary.h (bench/gpu/kit.sh makes them)
#     BUILD    a scratch folder
# Prints the folder that holds libtorch.so and the bridge (give it to PYTORCH_LIBRARY_PATH).
set -euo pipefail
SRC=$(readlink -f "$1"); INC=$(readlink -f "$2"); BUILD=$3; PY=${4:-python3}
PREFIX=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
LIBDIR=$("$PY" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
CUDA=$("$PY" -c 'import torch; print(1 if torch.version.cuda else "")')
NATIVE=$SRC/engines/pytorch/pytorch-native
mkdir -p "$BUILD/include"
cp "$INC"/ai_djl_pytorch_jni_PyTorchLibrary.h "$BUILD/include/"
cd "$BUILD"
# FindJNI is given the headers; no JVM library is linked (the JVM that loads the bridge provides it).
# c10 and torch are named by path: TorchConfig's find_library would take a system libtorch (a Debian
# libtorch-dev, say) before this one.
cmake -S "$NATIVE" -B . -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
  -Dc10_LIBRARY="$LIBDIR/libc10.so" -DTORCH_LIBRARY="$LIBDIR/libtorch.so" \
  -DUSE_CUDA="$CUDA" -DJAVA_INCLUDE_PATH="$INC" -DJAVA_INCLUDE_PATH2="$INC" -DJAVA_AWT_INCLUDE_PATH=NotNeeded \
  -DJAVA_JVM_LIBRARY=NotNeeded -DJAVA_AWT_LIBRARY=NotNeeded -DCMAKE_CXX_FLAGS="-I$BUILD/include" >&2
cmake --build . -- -k 0 >&2
cp libdjl_torch.so "$LIBDIR/libdjl_torch.so"
echo "$LIBDIR"
