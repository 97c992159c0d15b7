package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code table read --follow}, {@code table changelog} and {@code table describe} (issue 19): the
 * changes of each snapshot with row kinds, a consumer that resumes, the producer in describe, and
 * one-line errors.
 */
class ChangelogCommandTest {

  @TempDir Path dir;

  private CliRun run(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.kv"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRun.of(all);
  }

  private CliRun ok(String command, String... more) {
    CliRun result = run(command, more);
    assertThat(result.exitCode()).as(result.err() + result.out()).isZero();
    return result;
  }

  private String csv(String name, String content) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file.toString();
  }

  @Test
  void inputChangelogFollowAndDescribe() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v STRING",
        "--primary-key",
        "k",
        "-o",
        "changelog-producer=input");
    ok("write", "--csv", csv("a.csv", "k,v\n1,a\n2,b\n"));
    ok("write", "--csv", csv("b.csv", "_ROW_KIND,k,v\n-U,1,a\n+U,1,A\n-D,2,b\n"));
    assertThat(ok("changelog", "--from", "1", "--to", "2").out())
        .isEqualTo("_SNAPSHOT,_ROW_KIND,k,v\n1,+I,1,a\n1,+I,2,b\n2,-U,1,a\n2,+U,1,A\n2,-D,2,b\n");
    assertThat(ok("changelog", "--from", "2", "--json").out())
        .startsWith("{\"snapshot\":2,\"kind\":\"-U\",\"row\":{\"k\":\"1\",\"v\":\"a\"}}\n");
    // --follow: the latest snapshot in full, then nothing new until the timeout.
    assertThat(ok("read", "--follow", "--timeout", "200ms").out())
        .isEqualTo("_SNAPSHOT,_ROW_KIND,k,v\n2,+I,1,A\n");
    // A consumer reads from snapshot 1 and records its position; the next run resumes there.
    assertThat(
            ok(
                    "read",
                    "--follow",
                    "--from-snapshot",
                    "1",
                    "--consumer-id",
                    "c1",
                    "--max-snapshots",
                    "1")
                .out())
        .isEqualTo("_SNAPSHOT,_ROW_KIND,k,v\n1,+I,1,a\n1,+I,2,b\n");
    ok("write", "--csv", csv("c.csv", "k,v\n3,c\n"));
    assertThat(
            ok(
                    "read",
                    "--follow",
                    "--consumer-id",
                    "c1",
                    "--timeout",
                    "200ms",
                    "--interval",
                    "50ms")
                .out())
        .isEqualTo("_SNAPSHOT,_ROW_KIND,k,v\n2,-U,1,a\n2,+U,1,A\n2,-D,2,b\n3,+I,3,c\n");
    String describe = ok("describe").out();
    assertThat(describe)
        .contains("changelog-producer = input")
        .contains("changelog.num-retained.min = snapshot.num-retained.min")
        .contains("c1: next snapshot 4");
    assertThat(ok("describe", "--json").out())
        .contains("\"changelog-producer\":\"input\"")
        .contains("\"deletion-vectors.enabled\":false");
    assertThat(describe).contains("deletion vectors: deletion-vectors.enabled = false");
  }

  @Test
  void describeShowsDeletionVectors() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v STRING",
        "--primary-key",
        "k",
        "-o",
        "deletion-vectors.enabled=true");
    ok("write", "--csv", csv("a.csv", "k,v\n1,a\n2,b\n"));
    ok("write", "--csv", csv("b.csv", "k,v\n1,c\n"));
    assertThat(ok("describe").out())
        .contains(
            "deletion vectors: deletion-vectors.enabled = true (reads apply vectors, no merge)");
    assertThat(ok("describe", "--json").out()).contains("\"deletion-vectors.enabled\":true");
    assertThat(ok("read").out()).contains("1,c").contains("2,b").doesNotContain("1,a");
  }

  @Test
  void badInputIsOneLine() throws Exception {
    ok("create", "--schema", "k INT NOT NULL, v STRING", "--primary-key", "k");
    ok("write", "--csv", csv("a.csv", "k,v\n1,a\n"));
    CliRun result = run("changelog", "--from", "1", "--to", "5");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().trim())
        .contains("--to 5: the latest snapshot of db.kv is 1")
        .doesNotContain("\n");
    result = run("read", "--consumer-id", "x");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().trim()).contains("go with --follow").doesNotContain("\n");
    result = run("read", "--follow", "--count");
    assertThat(result.exitCode()).isEqualTo(2);
    // none: the APPEND snapshot's upserts.
    assertThat(ok("changelog", "--from", "1").out())
        .isEqualTo("_SNAPSHOT,_ROW_KIND,k,v\n1,+I,1,a\n");
  }
}
