#!/usr/bin/env bash
# Packs what a GPU machine without a JDK or Maven needs to run dev.agentswarm.app.bench.GpuCheck,
# into gpu/ (ignored by git), from a checkout where the modules are built
# (mvn -B -o -q -pl app -am package -DskipTests):
#   gpu/lib/      the module jars and the few dependency jars GpuCheck loads; no pytorch-native-cpu
#                 (the libtorch comes from the GPU machine) and no pytorch-jni (the bridge is built there)
#   gpu/jre/      a trimmed Java runtime (jlink)
#   gpu/include/  jni.h, jni_md.h and ai_djl_pytorch_jni_PyTorchLibrary.h (javac -h of DJL's PyTorchLibrary)
#   gpu/djl-src/  DJL's bridge source at the tag of the DJL in the pom (engines/pytorch/pytorch-native and
#                 api/src/main/native), taken from a DJL git clone: DJL_GIT=/path/to/djl/.git
# Then: du -sh gpu; the GPU machine runs bench/gpu/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
DJL_TAG=${DJL_TAG:-v0.35.1}
M2=${M2:-$HOME/.m2/repository}
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
rm -rf gpu/lib gpu/jre gpu/include && mkdir -p gpu/lib gpu/include
for m in core policy learner app; do
  cp "$m"/target/agentswarm-"$m"-*.jar gpu/lib/
done
mvn -B -o -q -pl app dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$PWD/gpu/cp.txt" >/dev/null
# Only what GpuCheck touches: DJL's api and PyTorch engine, Jackson, Typesafe config, logging, gson, JNA.
tr ':' '\n' < gpu/cp.txt | grep -E '/(api-0|pytorch-engine-|jackson-(core|databind|annotations)-|config-1|slf4j-api-|logback-(classic|core)-|gson-|jna-[0-9])[^/]*\.jar$' \
  | xargs -I{} cp {} gpu/lib/
rm gpu/cp.txt
# JDK 17's jlink: --compress=2 (zip); JDK 21 and later also take zip-9.
"$JAVA_HOME"/bin/jlink --add-modules java.base,java.logging,java.management,java.naming,java.sql,java.xml,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=2 --output gpu/jre
cp "$JAVA_HOME"/include/jni.h "$JAVA_HOME"/include/linux/jni_md.h gpu/include/
if [[ -n "${DJL_GIT:-}" ]]; then
  rm -rf gpu/djl-src && mkdir -p gpu/djl-src
  git --git-dir="$DJL_GIT" archive "$DJL_TAG" engines/pytorch/pytorch-native api/src/main/native \
    engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java | tar -x -C gpu/djl-src
fi
# The bridge's JNI header, as DJL's build.sh makes it (javac -h), against the engine jar.
tmp=$(mktemp -d)
"$JAVA_HOME"/bin/javac -cp "gpu/lib/*" -h gpu/include -d "$tmp" \
  gpu/djl-src/engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java
rm -rf "$tmp"
du -sh gpu/lib gpu/jre gpu/include gpu/djl-src gpu
