package dev.lockstep.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.conditional.Ownership;
import dev.lockstep.fs.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** The read-back that decides whose object is at a key after an ambiguous conditional write. */
class ConditionalWriterOwnershipTest {

  private static S3ProxyServer server;
  private static S3Clients clients;
  private static ConditionalWriter writer;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    S3Options options = S3Options.from(server.options());
    clients = new S3Clients(options);
    writer = new ConditionalWriter(clients, options);
  }

  @AfterAll
  static void stop() throws Exception {
    clients.close();
    server.close();
  }

  @Test
  void theWriteIdDecidesWhenTheStoreKeepsIt() {
    S3Location location = put("tagged", "same bytes", Map.of(ConditionalWriter.WRITE_ID, "ours"));
    assertThat(writer.ownership(location, "ours", bytes("same bytes"), cause()))
        .isEqualTo(Ownership.OURS);
    assertThat(writer.ownership(location, "another", bytes("same bytes"), cause()))
        .as("same bytes, another writer's call")
        .isEqualTo(Ownership.THEIRS);
  }

  @Test
  void withoutMetadataTheBytesDecide() {
    S3Location location = put("untagged", "our bytes", Map.of());
    assertThat(writer.ownership(location, "ours", bytes("our bytes"), cause()))
        .isEqualTo(Ownership.OURS);
    assertThat(writer.ownership(location, "ours", bytes("XXX bytes"), cause()))
        .as("same length, other bytes")
        .isEqualTo(Ownership.THEIRS);
    assertThat(writer.ownership(location, "ours", bytes("longer bytes"), cause()))
        .isEqualTo(Ownership.THEIRS);
    assertThat(writer.ownership(location, "ours", null, cause()))
        .as("a multipart write has no bytes in memory to compare")
        .isEqualTo(Ownership.UNKNOWN);
  }

  @Test
  void nothingThereIsAbsent() {
    S3Location location = new S3Location(S3ProxyServer.BUCKET, "nothing-" + System.nanoTime());
    assertThat(writer.ownership(location, "ours", bytes("x"), cause())).isEqualTo(Ownership.ABSENT);
  }

  private static S3Location put(String name, String content, Map<String, String> metadata) {
    S3Location location = S3Location.of(server.freshRoot().child(name));
    server
        .admin()
        .putObject(
            b -> b.bucket(location.bucket()).key(location.key()).metadata(metadata),
            RequestBody.fromString(content));
    return location;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static IOException cause() {
    return new IOException("ambiguous write");
  }
}
