#!/usr/bin/env bash
# Before call I, on the build machine, from the repository root of a clean main: the bundle.
set -euo pipefail
source bin/lib/env.sh && sirocco_find_jdk && export JAVA_HOME
bin/gpu-bundle
rm -f .gpu/lib/org.eclipse.jgit-*.jar; rm -rf .gpu/test-classes/fork-tracking .gpu/alt .gpu/alt2 .gpu/alt3
du -sh .gpu
