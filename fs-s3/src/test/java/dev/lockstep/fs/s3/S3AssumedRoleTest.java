package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.fs.s3.testing.StsTestServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code s3.assumed-role.*} against an STS-protocol server ({@link StsTestServer}) and s3proxy: STS
 * must see the store's own keys ask for the role with the configured session settings, and every S3
 * request must carry the role's temporary access key and session token, never the store's own key
 * ({@link LostAnswerProxy#signers()}, on the wire). s3proxy 4.0.0 answers 501 to any request with
 * {@code x-amz-security-token} (it implements no temporary credentials), so the proxy records the
 * token and forwards the request without it to an s3proxy that checks no signature.
 */
class S3AssumedRoleTest {

  private static final String ROLE = "arn:aws:iam::123456789012:role/lakehouse-writer";
  private static final String BASE_KEY = "base-user-key";
  private static final String BASE_SECRET = "base-user-secret";
  private static final String[] TEMPORARY = {
    S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY, "session-token-of-the-role"
  };

  private static S3ProxyServer s3;
  private static LostAnswerProxy wire;
  private static StsTestServer sts;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.startWithoutAuthentication();
    wire = new LostAnswerProxy(s3.port());
    wire.stripSessionTokens();
    sts = new StsTestServer(BASE_KEY, ROLE, "external-7", TEMPORARY, Duration.ofHours(1));
  }

  @AfterAll
  static void stop() throws Exception {
    sts.close();
    wire.close();
    s3.close();
  }

  /** The store's own keys, plus {@code extra}. */
  private static Map<String, String> options(Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(S3ProxyServer.options(wire.endpoint()));
    options.put(S3Options.ACCESS_KEY, BASE_KEY);
    options.put(S3Options.SECRET_KEY, BASE_SECRET);
    options.putAll(extra);
    return options;
  }

  private static Map<String, String> role(String arn) {
    return Map.of(
        S3Options.ASSUMED_ROLE_ARN,
        arn,
        S3Options.ASSUMED_ROLE_STS_ENDPOINT,
        sts.endpoint().toString(),
        S3Options.ASSUMED_ROLE_SESSION_NAME,
        "paimon-writer",
        S3Options.ASSUMED_ROLE_SESSION_DURATION,
        "20 min",
        S3Options.ASSUMED_ROLE_EXTERNAL_ID,
        "external-7");
  }

  @Test
  void theAssumedRolesCredentialsSignReadsAndWrites() throws Exception {
    Path root = s3.freshRoot();
    int before = sts.requests().size();
    int sent = wire.signers().size();
    try (FileIO store = FileIODiscovery.open(root, options(role(ROLE)))) {
      Path file = root.child("data/file.txt");
      try (OutputStream out = store.newOutputStream(file, false)) {
        out.write("written as the role".getBytes(StandardCharsets.UTF_8));
      }
      try (var in = store.newInputStream(file)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .isEqualTo("written as the role");
      }
      assertThat(store.list(root.child("data"))).hasSize(1);
      assertThat(store).isInstanceOf(SupportsAtomicCreate.class);
      Path snapshot = root.child("snapshot/snapshot-1");
      ((SupportsAtomicCreate) store).createAtomically(snapshot, new byte[] {1});
      assertThatThrownBy(
              () -> ((SupportsAtomicCreate) store).createAtomically(snapshot, new byte[] {2}))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(store.delete(file, false)).isTrue();
    }
    var signers = wire.signers().subList(sent, wire.signers().size());
    assertThat(signers)
        .as("every S3 request signed by the role's key, with its token")
        .isNotEmpty()
        .allMatch(k -> k.equals(TEMPORARY[0] + " " + TEMPORARY[2]));
    var asked = sts.requests().subList(before, sts.requests().size());
    assertThat(asked).as("one AssumeRole: the credentials last an hour").hasSize(1);
    assertThat(asked.get(0).callerKey()).isEqualTo(BASE_KEY);
    assertThat(asked.get(0).form())
        .containsEntry("Action", "AssumeRole")
        .containsEntry("RoleArn", ROLE)
        .containsEntry("RoleSessionName", "paimon-writer")
        .containsEntry("DurationSeconds", "1200")
        .containsEntry("ExternalId", "external-7");
  }

  @Test
  void credentialsAboutToExpireAreRenewed() throws Exception {
    try (StsTestServer shortLived =
        new StsTestServer(BASE_KEY, ROLE, null, TEMPORARY, Duration.ofSeconds(30))) {
      Map<String, String> options =
          options(
              Map.of(
                  S3Options.ASSUMED_ROLE_ARN,
                  ROLE,
                  S3Options.ASSUMED_ROLE_STS_ENDPOINT,
                  shortLived.endpoint().toString()));
      Path root = s3.freshRoot();
      try (FileIO store = FileIODiscovery.open(root, options)) {
        for (int i = 0; i < 3; i++) {
          try (OutputStream out = store.newOutputStream(root.child("f" + i), true)) {
            out.write(i);
          }
        }
      }
      assertThat(shortLived.requests())
          .as("credentials within a minute of expiry are stale to" + " the SDK, so it asked again")
          .hasSizeGreaterThan(1);
      assertThat(shortLived.requests().get(0).form())
          .containsEntry("RoleSessionName", "lockstep")
          .containsEntry("DurationSeconds", "3600")
          .doesNotContainKey("ExternalId");
    }
  }

  @Test
  void aRoleThatCannotBeAssumedFailsAtOpenInOneLineNamingTheOption() {
    String other = "arn:aws:iam::123456789012:role/not-mine";
    assertThatThrownBy(() -> FileIODiscovery.open(s3.freshRoot(), options(role(other))))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "Cannot assume the role '"
                + other
                + "' of option '"
                + S3Options.ASSUMED_ROLE_ARN
                + "' (AccessDenied: User: ")
        .hasMessageContaining("may call sts:AssumeRole")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));

    Map<String, String> wrongCaller = options(role(ROLE));
    wrongCaller.put(S3Options.ACCESS_KEY, "someone-else");
    assertThatThrownBy(() -> FileIODiscovery.open(s3.freshRoot(), wrongCaller))
        .hasMessageContaining("(InvalidClientTokenId: ");
  }

  @Test
  void badAssumedRoleOptionsAreRefusedBeforeAnyRequest() {
    int before = sts.requests().size();
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.ASSUMED_ROLE_ARN, "lakehouse-writer")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 's3.assumed-role.arn' is 'lakehouse-writer', not a role ARN; write for"
                + " example arn:aws:iam::123456789012:role/lakehouse-writer.");
    assertThatThrownBy(() -> S3Options.from(Map.of(S3Options.ASSUMED_ROLE_SESSION_NAME, "x")))
        .hasMessage(
            "Option 's3.assumed-role.session-name' is a setting of an assumed role, but"
                + " 's3.assumed-role.arn' is not set; set it to the role's ARN, or remove"
                + " 's3.assumed-role.session-name'.");
    assertThatThrownBy(
            () ->
                S3Options.from(
                    Map.of(
                        S3Options.ASSUMED_ROLE_ARN,
                        ROLE,
                        S3Options.ASSUMED_ROLE_SESSION_DURATION,
                        "13 h")))
        .hasMessageContaining("s3.assumed-role.session-duration")
        .hasMessageContaining("12 h");
    assertThatThrownBy(
            () ->
                S3Options.from(
                    Map.of(
                        S3Options.ASSUMED_ROLE_ARN,
                        ROLE,
                        S3Options.ASSUMED_ROLE_STS_ENDPOINT,
                        "sts.example.com")))
        .hasMessageStartingWith("Option 's3.assumed-role.sts-endpoint' is 'sts.example.com'");
    assertThat(
            S3Options.from(
                    Map.of(
                        S3Options.ACCESS_KEY,
                        "k",
                        S3Options.SECRET_KEY,
                        "s",
                        S3Options.ASSUMED_ROLE_ARN,
                        ROLE,
                        S3Options.ASSUMED_ROLE_EXTERNAL_ID,
                        "hidden"))
                .toString())
        .contains(ROLE)
        .doesNotContain("hidden");
    assertThat(sts.requests()).hasSize(before);
  }
}
