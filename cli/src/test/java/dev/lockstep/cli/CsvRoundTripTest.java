package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code table read} prints, {@code table write --csv} reads back unchanged: line breaks,
 * quotes and commas inside quoted fields, the empty string and null. The hand-written reader read a
 * CSV file line by line and could not read a quoted line break back at all.
 */
class CsvRoundTripTest {

  @TempDir Path dir;

  private CliRun ok(String command, String table, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", table
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    CliRun run = CliRun.of(all);
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  @Test
  void quotedLineBreaksQuotesEmptyStringsAndNullsSurviveAWriteAndAReadTwice() throws Exception {
    String input =
        "k,v\n"
            + "1,\"line one\nline two\"\n"
            + "2,\"say \"\"hi\"\", then go\"\n"
            + "3,\"\"\n"
            + "4,\n"
            + "5,\"windows\r\nbreak\"\n"
            + "6,plain\n";
    Path csv = dir.resolve("in.csv");
    Files.writeString(csv, input, StandardCharsets.UTF_8);
    for (String table : new String[] {"db.first", "db.second"}) {
      ok("create", table, "--schema", "k INT NOT NULL, v STRING", "--primary-key", "k");
    }
    ok("write", "db.first", "--csv", csv.toString());
    String printed = ok("read", "db.first").out();
    assertThat(printed).isEqualTo(input);

    Path again = dir.resolve("again.csv");
    Files.writeString(again, printed, StandardCharsets.UTF_8);
    ok("write", "db.second", "--csv", again.toString());
    assertThat(ok("read", "db.second").out()).isEqualTo(printed);
    assertThat(ok("read", "db.second", "--count").out().trim()).isEqualTo("6");
  }
}
