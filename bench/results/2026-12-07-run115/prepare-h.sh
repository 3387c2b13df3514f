#!/usr/bin/env bash
# Before call H, on the build machine, from the repository root of a clean main: the bundle (the
# present qmm-wgmma, b2) and .gpu/alt3 with b2x (b2 with run 114's x copy mapping: b2x.diff).
set -euo pipefail
d=bench/results/2026-12-07-run115
source bin/lib/env.sh && sirocco_find_jdk && export JAVA_HOME
bin/gpu-bundle
rm -f .gpu/lib/org.eclipse.jgit-*.jar; rm -rf .gpu/test-classes/fork-tracking
git apply $d/b2x.diff
trap 'git checkout tornado-kernels/src/main/java/sirocco/kernels/quant/QmmWgmmaKernel.java' EXIT
mvn -B -q -o -pl tornado-kernels package -DskipTests
rm -rf .gpu/alt .gpu/alt2 .gpu/alt3 && mkdir -p .gpu/alt3
cp tornado-kernels/target/sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar .gpu/alt3/
echo "$(git rev-parse --short HEAD) + b2x.diff" > .gpu/alt3/COMMIT
git checkout tornado-kernels/src/main/java/sirocco/kernels/quant/QmmWgmmaKernel.java
trap - EXIT
mvn -B -q -o -pl tornado-kernels package -DskipTests # the checkout's own jar back in target/
cmp -s .gpu/alt3/sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar .gpu/lib/sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar \
  && { echo "prepare-h: b2x's jar is the bundle's own" >&2; exit 1; }
du -sh .gpu
