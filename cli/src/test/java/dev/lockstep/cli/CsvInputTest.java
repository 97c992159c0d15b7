package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSV input as spreadsheets and pipes give it (issue 25): a UTF-8 byte order mark, {@code --csv -}
 * for the standard input, a header mapped by name, a quoted line break, a bad row named by line and
 * column with nothing written, and {@code --skip-bad-rows}.
 */
class CsvInputTest {

  @TempDir Path dir;

  private CliRun run(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.t"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRun.of(all);
  }

  private CliRun ok(String command, String... more) {
    CliRun r = run(command, more);
    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    return r;
  }

  @BeforeEach
  void create() {
    ok("create", "--schema", "k INT NOT NULL, v BIGINT, s STRING", "--primary-key", "k");
  }

  private Path csv(String text) throws Exception {
    Path f = Files.createTempFile(dir, "in", ".csv");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  private Set<String> files() throws Exception {
    Path table = dir.resolve("wh/db.db/t");
    try (Stream<Path> s = Files.walk(table)) {
      return s.filter(Files::isRegularFile)
          .map(p -> table.relativize(p).toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void aByteOrderMarkIsSkippedAndTheHeaderMapsByName() throws Exception {
    ok("write", "--csv", csv("\uFEFFs,k,v\nx,1,10\n\"two\nlines\",2,20\n").toString());
    assertThat(ok("read").out()).isEqualTo("k,v,s\n1,10,x\n2,20,\"two\nlines\"\n");
  }

  @Test
  void theStandardInputIsReadWithADash() throws Exception {
    InputStream saved = System.in;
    try {
      System.setIn(new ByteArrayInputStream("k,v\n1,10\n2,20\n".getBytes(StandardCharsets.UTF_8)));
      assertThat(ok("write", "--csv", "-").out()).contains("wrote 2 rows");
      // The same input again is the same load (its content names it): a no-op.
      System.setIn(new ByteArrayInputStream("k,v\n1,10\n2,20\n".getBytes(StandardCharsets.UTF_8)));
      assertThat(ok("write", "--csv", "-").out()).contains("already committed");
      System.setIn(new ByteArrayInputStream("k,v\n3,x\n".getBytes(StandardCharsets.UTF_8)));
      CliRun bad = run("write", "--csv", "-");
      assertThat(bad.exitCode()).isEqualTo(2);
      assertThat(bad.err().strip())
          .isEqualTo(
              "lockstep: --csv - (standard input) line 2, column 'v': 'x' is not a valid"
                  + " BIGINT (For input string: \"x\")");
    } finally {
      System.setIn(saved);
    }
    assertThat(ok("read").out()).isEqualTo("k,v,s\n1,10,\n2,20,\n");
  }

  @Test
  void aBadRowNamesItsLineAndColumnAndWritesNothingUnlessSkipped() throws Exception {
    ok("write", "--generate", "3");
    Set<String> before = files();
    String text = "k,v,s\n10,1,a\n11,\"multi\nline\",b\n12,3\n13,4,c\n14,five,d\n";
    Path f = csv(text);
    CliRun bad = run("write", "--csv", f.toString());
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains(f + " line 3, column 'v': 'multi\nline'".replace("\n", " "));
    assertThat(bad.err().strip().lines()).hasSize(1);
    assertThat(files()).as("nothing written").isEqualTo(before);

    CliRun skipped = ok("write", "--csv", f.toString(), "--skip-bad-rows");
    assertThat(skipped.out())
        .contains("wrote 2 rows")
        .contains("skipped 3 bad row(s) (--skip-bad-rows), the first: " + f + " line 3");
    assertThat(ok("read", "--count").out().trim()).isEqualTo("5");
    assertThat(ok("read", "--columns", "k").out()).isEqualTo("k\n0\n1\n2\n10\n13\n");

    assertThat(run("write", "--generate", "1", "--skip-bad-rows").err())
        .contains("--skip-bad-rows applies to --csv input only");
  }
}
