package dev.lockstep.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.InJvmLockFactory;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import dev.lockstep.testing.InJvmLockService;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ServiceLoader discovery of stores by scheme and of lock backends by {@code lock.type}. */
class DiscoveryTest {

  @Test
  void fileUrisAndBarePathsAreServedByTheLocalStore() throws IOException {
    try (FileIO bare = FileIODiscovery.open(Path.of("/tmp/x"), Map.of());
        FileIO uri = FileIODiscovery.open(Path.of("file:///tmp/x"), Map.of())) {
      assertThat(bare).isInstanceOf(LocalFileIO.class);
      assertThat(uri).isInstanceOf(LocalFileIO.class);
    }
  }

  @Test
  void anUnknownSchemeIsAnErrorListingTheSchemesFound() {
    assertThatThrownBy(() -> FileIODiscovery.open(Path.of("gs://bucket/t"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'gs'")
        .hasMessageContaining("Schemes found on the classpath: [file]")
        .hasMessageContaining("lockstep-fs-s3");
  }

  @Test
  void aSchemeAliasServesAnUnservedSchemeWithAnotherSchemesStore() throws IOException {
    try (FileIO aliased =
        FileIODiscovery.open(
            Path.of("mylocal://host/t"),
            Map.of(FileIODiscovery.SCHEME_ALIAS_PREFIX + "mylocal", "file"))) {
      assertThat(aliased).isInstanceOf(LocalFileIO.class);
    }
    assertThatThrownBy(
            () ->
                FileIODiscovery.open(
                    Path.of("mylocal://host/t"),
                    Map.of(FileIODiscovery.SCHEME_ALIAS_PREFIX + "mylocal", "nosuch")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'fs.scheme-alias.mylocal=nosuch'")
        .hasMessageContaining("[file]");
    assertThatThrownBy(() -> FileIODiscovery.open(Path.of("mylocal://host/t"), Map.of()))
        .hasMessageContaining("fs.scheme-alias.mylocal=<scheme>");
  }

  @Test
  void lockTypePicksTheFactoryWithThatIdentifier() throws IOException {
    try (LockService service = LockServiceDiscovery.open(Map.of("lock.type", "in-jvm"))) {
      assertThat(service).isInstanceOf(InJvmLockService.class);
    }
    assertThat(LockServiceDiscovery.factories(getClass().getClassLoader()))
        .containsOnlyKeys(InJvmLockFactory.IDENTIFIER, "test-os-file");
  }

  @Test
  void anUnknownLockTypeIsAnErrorListingTheTypesFound() {
    assertThatThrownBy(() -> LockServiceDiscovery.open(Map.of("lock.type", "zookeper")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'zookeper'")
        .hasMessageContaining("Lock types found on the classpath: [in-jvm, test-os-file]")
        .hasMessageContaining("lockstep-lock-zookeeper");
  }

  @Test
  void aMissingLockTypeIsAnErrorNamingTheOption() {
    assertThatThrownBy(() -> LockServiceDiscovery.open(Map.of("lock.enabled", "true")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'lock.type' is required")
        .hasMessageContaining("[in-jvm, test-os-file]");
  }
}
