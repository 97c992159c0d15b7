package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code table read} and {@code table count} with {@code --where} and {@code --columns}: the rows
 * the expression makes true, the columns asked for, and one-line errors for a bad expression or an
 * unknown column (issue 20).
 */
class WhereCommandTest {

  @TempDir Path dir;

  private String[] args(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "shop.orders"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  private CliRun ok(String command, String... more) {
    CliRun run = CliRun.of(args(command, more));
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  private void table() throws Exception {
    ok(
        "create",
        "--schema",
        "dt DATE, id INT NOT NULL, amount DECIMAL(8, 2), note STRING, at TIMESTAMP",
        "--primary-key",
        "dt,id",
        "--partition-keys",
        "dt");
    Path file = dir.resolve("rows.csv");
    Files.write(
        file,
        List.of(
            "dt,id,amount,note,at",
            "2024-05-01,1,10.50,first,2024-05-01 10:00:00",
            "2024-05-01,2,3.25,,2024-05-01 11:30:00",
            "2024-05-02,1,7.00,\"it's\",2024-05-02 09:00:00.123456",
            "2024-05-02,2,,x,"));
    ok("write", "--csv", file.toString());
  }

  @Test
  void readAndCountTakeAWhereExpressionAndColumns() throws Exception {
    table();
    assertThat(ok("read", "--where", "amount >= 7", "--columns", "id,amount").out())
        .isEqualTo("id,amount\n1,10.50\n1,7.00\n");
    assertThat(ok("count", "--where", "note IS NULL OR amount IS NULL").out()).isEqualTo("2\n");
    assertThat(ok("read", "--count", "--where", "note = 'it''s'").out()).isEqualTo("1\n");
    assertThat(
            ok(
                    "read",
                    "--columns",
                    "note",
                    "--where",
                    "dt = DATE '2024-05-01' AND NOT (id IN (2, 3)) AND at <"
                        + " TIMESTAMP '2024-05-01 10:00:00.000001'")
                .out())
        .isEqualTo("note\nfirst\n");
    assertThat(ok("count", "--where", "amount <> 3.25").out()).isEqualTo("2\n");
    assertThat(ok("count").out()).isEqualTo("4\n");
  }

  @Test
  void aBadExpressionOrColumnIsOneLineNamingThePositionOrTheColumns() throws Exception {
    table();
    CliRun bad = CliRun.of(args("read", "--where", "amount >= 7 AND (note = 'x'"));
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.out()).isEmpty();
    assertThat(bad.err().strip())
        .isEqualTo(
            "lockstep: --where: At position 28: expected ')', found the end; close every '('"
                + " with ')'.");
    CliRun unknown = CliRun.of(args("count", "--where", "amont > 1"));
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err().strip())
        .isEqualTo(
            "lockstep: --where: At position 1: expected a column, found 'amont'; no column"
                + " 'amont'; the columns are [dt, id, amount, note, at].");
    CliRun type = CliRun.of(args("read", "--where", "id = 'one'"));
    assertThat(type.err().strip())
        .isEqualTo(
            "lockstep: --where: At position 1: The value 'one' does not fit column 'id' of type INT"
                + " NOT NULL (use a whole number in its range).");
    CliRun columns = CliRun.of(args("read", "--columns", "id,nope"));
    assertThat(columns.exitCode()).isEqualTo(2);
    assertThat(columns.err().strip())
        .isEqualTo(
            "lockstep: --columns: No column 'nope'; the columns are [dt, id, amount, note, at].");
  }
}
