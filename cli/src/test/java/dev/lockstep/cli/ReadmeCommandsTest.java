package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code bin/lockstep table} line of a README block that defines {@code W="..."} (the root
 * README's tour and cli/README's operator commands) is run, in order, against a fresh warehouse in
 * place of {@code /tmp/wh}, and exits 0. Input files the block names by a relative path are written
 * first (the rows the tour assumes). The only line not run is a {@code compact --continuous}
 * without {@code --for}, which runs until stopped.
 */
class ReadmeCommandsTest {

  @TempDir Path dir;

  /** One command of a README block, as its words. */
  private record Line(String text, List<String> words) {}

  private static List<Line> tableLines(Path readme, String warehouse) throws Exception {
    List<Line> lines = new ArrayList<>();
    boolean inBlock = false;
    List<String> w = null;
    StringBuilder pending = null;
    for (String raw : Files.readAllLines(readme)) {
      if (raw.startsWith("```")) {
        inBlock = !inBlock;
        w = null;
        continue;
      }
      if (!inBlock) {
        continue;
      }
      if (raw.startsWith("W=\"")) {
        w = words(raw.substring(3, raw.lastIndexOf('"')).replace("/tmp/wh", warehouse));
        continue;
      }
      if (w == null) {
        continue;
      }
      String code = withoutComment(raw);
      if (pending == null && !code.startsWith("bin/lockstep table ")) {
        continue;
      }
      pending = pending == null ? new StringBuilder() : pending;
      if (code.endsWith("\\")) {
        pending.append(code, 0, code.length() - 1).append(' ');
        continue;
      }
      pending.append(code);
      String text = pending.toString().trim();
      pending = null;
      List<String> words = new ArrayList<>();
      for (String word : words(text.substring("bin/lockstep ".length()))) {
        if (word.equals("$W")) {
          words.addAll(w);
        } else {
          words.add(word);
        }
      }
      lines.add(new Line(text, words));
    }
    return lines;
  }

  private static String withoutComment(String line) {
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (c == '#' && !quoted && (i == 0 || line.charAt(i - 1) == ' ')) {
        return line.substring(0, i).stripTrailing();
      }
    }
    return line.stripTrailing();
  }

  /** Splits on spaces outside double quotes; the quotes go. */
  private static List<String> words(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    boolean quoted = false;
    for (char c : text.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
        word = word == null ? new StringBuilder() : word;
      } else if (c == ' ' && !quoted) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  private List<String> runAll(Path readme) throws Exception {
    List<Line> lines = tableLines(readme, dir.resolve("wh").toString());
    assertThat(lines).as("README lines in %s", readme).isNotEmpty();
    List<String> ran = new ArrayList<>();
    for (Line line : lines) {
      List<String> words = new ArrayList<>(line.words());
      if (words.contains("--continuous") && !words.contains("--for")) {
        continue;
      }
      for (int i = 0; i + 1 < words.size(); i++) {
        if (words.get(i).equals("--csv") && !Path.of(words.get(i + 1)).isAbsolute()) {
          words.set(i + 1, dir.resolve(words.get(i + 1)).toString());
        }
      }
      CliRun run = CliRun.of(words.toArray(String[]::new));
      assertThat(run.exitCode()).as("%s%n%s%s", line.text(), run.out(), run.err()).isZero();
      ran.add(words.get(1));
    }
    return ran;
  }

  @Test
  void theRootReadmesTableTourRuns() throws Exception {
    Files.write(
        dir.resolve("orders.csv"),
        List.of(
            "dt,id,amount,note",
            "2024-05-01,1,10.50,first",
            "2024-05-01,2,3.25,",
            "2024-05-02,1,7.00,\"a, b\""));
    Files.write(dir.resolve("fix.csv"), List.of("dt,id,amount", "2024-05-01,1,11.00"));
    List<String> ran = runAll(Path.of("..", "README.md"));
    assertThat(ran)
        .contains(
            "create",
            "write",
            "read",
            "snapshots",
            "overwrite",
            "compact",
            "expire-snapshots",
            "remove-orphan-files",
            "files",
            "check",
            "create-tag",
            "tags",
            "rollback",
            "delete-tag",
            "drop");
  }

  @Test
  void theOperatorCommandsOfTheCliReadmeRun() throws Exception {
    List<String> ran = runAll(Path.of("README.md"));
    assertThat(ran)
        .contains(
            "create",
            "write",
            "snapshots",
            "files",
            "check",
            "create-tag",
            "tags",
            "read",
            "rollback",
            "delete-tag",
            "drop");
    assertThat(dir.resolve("wh/shop.db/orders")).doesNotExist();
  }
}
