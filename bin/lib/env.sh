# Sourced by the bin/ scripts: finds JDK 25 and sets up Maven. Never exits the caller's shell on success.
# JDK 25: $JAVA_HOME when it is 25, else Temurin 25 where this project's machines keep it.
sirocco_find_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
    if "$candidate/bin/java" -version 2>&1 | head -n 1 | grep -Eq '"25(\.|")'; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  echo "sirocco: JDK 25 not found: set JAVA_HOME to a JDK 25 (e.g. Temurin 25 at /usr/lib/jvm/temurin-25-jdk-amd64)" >&2
  return 1
}

sirocco_root() {
  cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd
}

# Maven on JDK 25 prints Unsafe deprecation warnings from its own Guava; they are not ours.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
