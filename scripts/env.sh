# Sourced by the scripts: selects a JDK 25 and the Maven flags every script uses.
# The machine's default java may be older; the build refuses anything below 25.
memchan_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${JAVA_HOME:-}" ] || ! "${JAVA_HOME}/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  for candidate in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
    if [ -x "$candidate/bin/java" ]; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || ! "${JAVA_HOME}/bin/java" -version 2>&1 | grep -q 'version "2[5-9]'; then
  echo "memchan: no JDK 25 found (looked in /usr/lib/jvm). Install Temurin 25 or set JAVA_HOME." >&2
  exit 3
fi
export PATH="$JAVA_HOME/bin:$PATH"
MVN_FLAGS=(-B -ntp -Dstyle.color=never)
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
