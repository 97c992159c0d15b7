package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unknown keys: one check, one message, whether a component or the catalog finds them. */
class OptionCatalogTest {

  private static final OptionSet ZK =
      OptionSet.of("the ZooKeeper lock", "zk/README.md")
          .namespace("lock.zk.")
          .option(
              ConfigOption.key("lock.zk.connect-string").stringType().noDefaultValue(),
              ConfigOption.key("lock.zk.session-timeout").durationType().noDefaultValue())
          .build();
  private static final OptionSet STORE =
      OptionSet.of("the store", "store/README.md")
          .namespace("st.")
          .option(ConfigOption.key("st.endpoint").stringType().noDefaultValue())
          .passThrough("st.property.")
          .build();
  private static final OptionSet CORE =
      OptionSet.of("core", "core/README.md")
          .option(ConfigOption.key("lock.enabled").booleanType().defaultValue(false))
          .build();
  private static final OptionCatalog CATALOG = OptionCatalog.of(List.of(ZK, STORE, CORE));

  @Test
  void aComponentRefusesTyposInItsNamespaceAndIgnoresOtherNamespaces() {
    assertThatThrownBy(() -> ZK.checkNamespace(Map.of("lock.zk.conect-string", "h:1")))
        .isInstanceOf(UnknownOptionException.class)
        .hasMessage(
            "Unknown option 'lock.zk.conect-string'. Did you mean 'lock.zk.connect-string'?"
                + " Keys under 'lock.zk.' are read by the ZooKeeper lock; see the options table in"
                + " zk/README.md.");
    assertThatCode(
            () ->
                ZK.checkNamespace(
                    Map.of("st.whatever", "1", "bucket", "4", "lock.zk.session-timeout", "1 s")))
        .doesNotThrowAnyException();
    assertThatCode(() -> STORE.checkNamespace(Map.of("st.property.x", "1")))
        .as("pass-through")
        .doesNotThrowAnyException();
  }

  @Test
  void theCatalogGivesTheComponentsMessageForAKeyInItsNamespace() {
    Map<String, String> typo = Map.of("lock.zk.conect-string", "h:1");
    Throwable byComponent = catchUnknown(() -> ZK.checkNamespace(typo));
    Throwable byCatalog = catchUnknown(() -> CATALOG.check(typo));
    assertThat(byCatalog).hasMessage(byComponent.getMessage());
    assertThat(((UnknownOptionException) byCatalog).suggestion())
        .isEqualTo("lock.zk.connect-string");
  }

  @Test
  void theCatalogRefusesKeysNoComponentClaimsWithTheNearestOfAll() {
    assertThatThrownBy(() -> CATALOG.check(Map.of("lock.enable", "true")))
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith("Unknown option 'lock.enable'. Did you mean 'lock.enabled'?")
        .hasMessageContaining("st.property.");
    assertThatCode(
            () ->
                CATALOG.check(
                    Map.of(
                        "lock.enabled",
                        "true",
                        "st.property.a",
                        "b",
                        "lock.zk.connect-string",
                        "h:1")))
        .doesNotThrowAnyException();
  }

  private static Throwable catchUnknown(Runnable r) {
    try {
      r.run();
    } catch (UnknownOptionException e) {
      return e;
    }
    throw new AssertionError("no UnknownOptionException");
  }
}
