package dev.lockstep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's examples: every statement of its {@code sql} block in order (comment lines
 * right after a statement are its expected rows, columns separated by two or more spaces), then the
 * {@code spark.sql(...)} statements of its {@code scala} block.
 */
class ReadmeExamplesTest extends SparkTestBase {

  private static String block(String readme, String language) {
    int start = readme.indexOf("```" + language + "\n");
    assertThat(start).as("a ```" + language + " block in the README").isNotNegative();
    int end = readme.indexOf("```", start + 4 + language.length());
    return readme.substring(start + 4 + language.length(), end);
  }

  @Test
  void readmeExamplesRun() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    List<String> lines = Arrays.asList(block(readme, "sql").split("\n"));
    StringBuilder statement = new StringBuilder();
    int run = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (statement.length() == 0 && (line.isBlank() || line.startsWith("--"))) {
        continue;
      }
      statement.append(line).append('\n');
      if (!line.trim().endsWith(";")) {
        continue;
      }
      String sql = statement.toString().trim();
      sql = sql.substring(0, sql.length() - 1);
      statement.setLength(0);
      List<Row> result = sql(sql);
      run++;
      List<String> expected = new ArrayList<>();
      while (i + 1 < lines.size() && lines.get(i + 1).startsWith("-- ")) {
        expected.add(lines.get(++i).substring(3).trim());
      }
      if (!expected.isEmpty()) {
        List<String> actual =
            result.stream()
                .map(
                    r -> {
                      List<String> values = new ArrayList<>();
                      for (int c = 0; c < r.size(); c++) {
                        values.add(r.isNullAt(c) ? "NULL" : r.get(c).toString());
                      }
                      return String.join("  ", values);
                    })
                .collect(Collectors.toList());
        List<String> normalized =
            expected.stream().map(e -> e.replaceAll(" {2,}", "  ")).collect(Collectors.toList());
        assertThat(actual).as(sql).isEqualTo(normalized);
      }
    }
    assertThat(run).isGreaterThanOrEqualTo(14);

    Matcher scala =
        Pattern.compile("spark\\.sql\\(\"([^\"]+)\"\\)").matcher(block(readme, "scala"));
    int scalaStatements = 0;
    while (scala.find()) {
      sql(scala.group(1));
      scalaStatements++;
    }
    assertThat(scalaStatements).isEqualTo(2);
    assertThat(rows("SHOW TABLES IN lake.shop")).anyMatch(r -> r.contains("events"));
  }
}
