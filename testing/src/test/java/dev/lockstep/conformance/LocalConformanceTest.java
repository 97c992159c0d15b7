package dev.lockstep.conformance;

import org.junit.jupiter.api.io.TempDir;

/**
 * The whole kit, through its one entry point, against {@code LocalFileIO} and the in-JVM file lock:
 * every contract of {@link ConformanceSuite}, as a vendor runs it.
 */
class LocalConformanceTest extends ConformanceSuite {

  @TempDir static java.nio.file.Path root;

  @Override
  protected ConformanceTarget target() {
    return LocalTargets.local(root).build();
  }
}
