# Sourced by the scripts: selects a JDK 25 and the Maven flags every script uses.
# The machine's default java may be older; the build refuses anything below 25.
memchan_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A JDK's major version from its release file (JAVA_VERSION="25.0.3"), else from java -version:
# reading the file starts no JVM, which every mcctl call would otherwise pay once more (seconds
# in a QEMU guest).
memchan_jdk_is_25_or_newer() {
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2> /dev/null)
  [ -n "$v" ] || v=$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [ -x "$1/bin/java" ] && [ -n "$v" ] && [ "$v" -ge 25 ]
}
if [ -z "${JAVA_HOME:-}" ] || ! memchan_jdk_is_25_or_newer "$JAVA_HOME"; then
  JAVA_HOME=
  for candidate in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
    if memchan_jdk_is_25_or_newer "$candidate"; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ]; then
  echo "memchan: no JDK 25 found (looked in /usr/lib/jvm). Install Temurin 25 or set JAVA_HOME." >&2
  exit 3
fi
export PATH="$JAVA_HOME/bin:$PATH"
MVN_FLAGS=(-B -ntp -Dstyle.color=never)
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
