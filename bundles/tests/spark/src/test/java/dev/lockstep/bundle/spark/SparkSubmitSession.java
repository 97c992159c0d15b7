package dev.lockstep.bundle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.MutableURLClassLoader;

/**
 * One Spark session per test class, launched from a {@code spark-sql} example of {@code
 * spark/README.md} the way {@code spark-submit} launches it in client mode: the jars of {@code
 * --jars} on a {@link MutableURLClassLoader} over the application class loader, made the driver
 * thread's context class loader before the session starts, and in {@code spark.jars}, from where
 * the executor fetches them into its own class loader; every {@code --conf} of the example as
 * written, except the machine-specific values the test replaces (the warehouse, a server address).
 * The Lockstep jars are never on the test class path.
 */
final class SparkSubmitSession implements AutoCloseable {

  final Map<String, String> readmeConf;
  final List<Path> jarFiles;
  final MutableURLClassLoader jars;
  final SparkSession spark;
  private final ClassLoader previousContext;

  /**
   * @param blockContaining a text that only the wanted {@code spark-sql} block of the README has
   * @param jarFiles the file for each name the block's {@code --jars} lists
   * @param replaced the {@code --conf} values to replace, each with the README's value checked
   */
  private SparkSubmitSession(
      String blockContaining, Map<String, Path> jarFiles, Map<String, String[]> replaced)
      throws Exception {
    String readme =
        Files.readString(Path.of(required("lockstep.spark.readme")), StandardCharsets.UTF_8);
    String block = launchBlock(readme, blockContaining);
    Matcher jarsMatch = JARS.matcher(block);
    assertThat(jarsMatch.find()).as("--jars in %s", block).isTrue();
    List<String> names = List.of(jarsMatch.group(1).split(","));
    assertThat(names).as("--jars of the README block").containsExactlyElementsOf(jarFiles.keySet());
    this.jarFiles = names.stream().map(jarFiles::get).collect(Collectors.toList());
    Map<String, String> conf = new LinkedHashMap<>();
    Matcher m = CONF.matcher(block);
    while (m.find()) {
      conf.put(m.group(1), m.group(2));
    }
    this.readmeConf = Map.copyOf(conf);
    for (Map.Entry<String, String[]> replace : replaced.entrySet()) {
      assertThat(conf).as("README --conf").containsEntry(replace.getKey(), replace.getValue()[0]);
      conf.put(replace.getKey(), replace.getValue()[1]);
    }

    previousContext = Thread.currentThread().getContextClassLoader();
    List<URL> urls = new ArrayList<>();
    for (Path jar : this.jarFiles) {
      urls.add(jar.toUri().toURL());
    }
    jars =
        new MutableURLClassLoader(
            urls.toArray(new URL[0]), SparkSubmitSession.class.getClassLoader());
    Thread.currentThread().setContextClassLoader(jars);
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("lockstep-spark-bundle-it")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .config(
                "spark.jars",
                this.jarFiles.stream()
                    .map(p -> p.toUri().toString())
                    .collect(Collectors.joining(",")));
    conf.forEach(builder::config);
    spark = builder.getOrCreate();
  }

  static SparkSubmitSession launch(
      String blockContaining, Map<String, Path> jarFiles, Map<String, String[]> replaced)
      throws Exception {
    return new SparkSubmitSession(blockContaining, jarFiles, replaced);
  }

  @Override
  public void close() throws IOException {
    try {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    } finally {
      Thread.currentThread().setContextClassLoader(previousContext);
      jars.close();
    }
  }

  List<String> rows(String sql) {
    return spark.sql(sql).collectAsList().stream().map(Row::toString).collect(Collectors.toList());
  }

  /**
   * Runs every statement of the README's {@code sql} block in order; comment lines right after a
   * statement ({@code -- } and the columns, separated by two or more spaces) are its rows, checked
   * exactly. Returns the number of statements run.
   */
  int runReadmeSqlBlock() throws IOException {
    String readme = Files.readString(Path.of(required("lockstep.spark.readme")));
    List<String> lines = Arrays.asList(block(readme, "```sql\n").split("\n"));
    StringBuilder statement = new StringBuilder();
    int run = 0;
    int checked = 0;
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
      List<Row> result = spark.sql(sql).collectAsList();
      run++;
      List<String> expected = new ArrayList<>();
      while (i + 1 < lines.size() && lines.get(i + 1).startsWith("-- ")) {
        expected.add(lines.get(++i).substring(3).trim().replaceAll(" {2,}", "  "));
      }
      if (!expected.isEmpty()) {
        assertThat(result.stream().map(SparkSubmitSession::columns).collect(Collectors.toList()))
            .as(sql)
            .isEqualTo(expected);
        checked++;
      }
    }
    assertThat(statement.toString()).as("an unterminated statement in the sql block").isBlank();
    assertThat(checked).as("statements with rows shown").isGreaterThanOrEqualTo(3);
    return run;
  }

  private static String columns(Row row) {
    List<String> values = new ArrayList<>();
    for (int c = 0; c < row.size(); c++) {
      values.add(row.isNullAt(c) ? "NULL" : row.get(c).toString());
    }
    return String.join("  ", values);
  }

  /** The snapshot ids of a table, from its snapshot files in the warehouse. */
  static List<Long> snapshots(Path warehouse, String db, String table) throws IOException {
    Path dir = warehouse.resolve(db + ".db").resolve(table).resolve("snapshot");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.matches("snapshot-\\d+"))
          .map(name -> Long.parseLong(name.substring("snapshot-".length())))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** The text between {@code opening} (its first occurrence) and the next fence. */
  static String block(String readme, String opening) {
    int start = readme.indexOf(opening);
    assertThat(start).as("a %s block in the README", opening.trim()).isNotNegative();
    int end = readme.indexOf("```", start + opening.length());
    return readme.substring(start + opening.length(), end);
  }

  private static final Pattern CONF = Pattern.compile("--conf\\s+([^=\\s]+)=(\\S+)");
  private static final Pattern JARS = Pattern.compile("--jars\\s+(\\S+)");

  /** The first {@code spark-sql} block of the README's Examples that contains {@code text}. */
  private static String launchBlock(String readme, String text) {
    int at = readme.indexOf("## Examples");
    assertThat(at).as("README section Examples").isNotNegative();
    while (true) {
      int start = readme.indexOf("```\nspark-sql ", at);
      assertThat(start).as("a spark-sql block containing %s", text).isNotNegative();
      String block = readme.substring(start + 4, readme.indexOf("```", start + 4));
      if (block.contains(text)) {
        return block;
      }
      at = start + 4 + block.length() + 3;
    }
  }

  static String required(String property) {
    String value = System.getProperty(property);
    assertThat(value)
        .as("system property %s (run through Maven: phase verify)", property)
        .isNotBlank()
        .doesNotStartWith("${");
    return value;
  }

  static Path requiredJar(String property) throws IOException {
    Path jar = Path.of(required(property)).toRealPath();
    assertThat(jar.getFileName().toString()).endsWith(".jar").doesNotStartWith("original-");
    return jar;
  }

  static Path origin(Class<?> type) throws Exception {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    assertThat(source).as("code source of %s", type).isNotNull();
    return Path.of(source.getLocation().toURI()).toRealPath();
  }
}
