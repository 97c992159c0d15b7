package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every {@code lockstep} command the repository's Markdown shows works from a clone (issue 25), so
 * that a README cannot drift from the command line again (it once said {@code conformance --uri}
 * where the flag is {@code --store}). The rules:
 *
 * <ul>
 *   <li><b>What is a command.</b> In a fenced block of any {@code .md} file of the repository (not
 *       under {@code target/}), a line that starts with {@code bin/lockstep } (the launcher, as the
 *       READMEs write it), continued by trailing backslashes, without its {@code # comment}, with
 *       {@code $W} replaced by the block's {@code W="..."}. Everything else in a block is exempt:
 *       build and script commands ({@code ./mvnw}, {@code scripts/}, {@code benchmarks/}, {@code
 *       java -cp}, {@code spark-sql}...), configuration and sample output.
 *   <li><b>Every command is parse-checked</b>: picocli parses it as {@link LockstepCli} does (a
 *       flag that does not exist, a missing required option, a bad value fail) and each {@code -o
 *       key=value} names a declared option ({@link OptionKeys}).
 *   <li><b>A local command is run</b>, block by block in order, in a fresh directory that takes the
 *       place of {@code /tmp}, and must exit 0. A command is local unless it names a remote store
 *       or service (a {@code scheme://} other than {@code file://}), has a {@code ...} placeholder,
 *       reads a file in the user's home ({@code ~/}), or is a continuous job without {@code --for}
 *       (it runs until stopped). Relative {@code --csv} inputs are written first from {@link
 *       #INPUTS}. A {@code conformance} or {@code stress} run gets {@link #SCALE} appended (less
 *       work: fewer conformance rounds, a 1 MiB large object, 5 commits per stress writer; its
 *       flags are the README's).
 *   <li><b>Inline code</b> such as {@code `lockstep table create -o ...`} in the text names an
 *       existing command and only flags it has.
 * </ul>
 */
class DocCommandsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The input files that README commands name by a relative path (the rows the tour assumes). */
  static final Map<String, List<String>> INPUTS =
      Map.of(
          "orders.csv",
          List.of(
              "dt,id,amount,note",
              "2024-05-01,1,10.50,first",
              "2024-05-01,2,3.25,",
              "2024-05-02,1,7.00,\"a, b\""),
          "fix.csv",
          List.of("dt,id,amount", "2024-05-01,1,11.00"));

  /**
   * Appended to a run of these commands (when the command does not set them itself) so that it
   * takes seconds, not minutes: fewer conformance rounds and a 1 MiB large object; 5 commits per
   * stress writer. The flags under test are the README's; these only scale the work.
   */
  static final Map<String, List<String>> SCALE =
      Map.of(
          "conformance",
          List.of("-o", "conformance.rounds=5", "-o", "conformance.large-object-size=1048576"),
          "stress",
          List.of("--commits", "5"));

  private static final Pattern INLINE = Pattern.compile("`((?:bin/)?lockstep [^`]+)`");

  @TempDir Path dir;

  /** One command of a fenced block. */
  record Command(Path file, int line, int block, String text, List<String> words) {
    String where() {
      return ROOT.relativize(file) + ":" + line + ": " + text;
    }
  }

  /** One inline {@code `lockstep ...`} span of the text. */
  record Inline(Path file, int line, String text) {}

  static List<Path> markdownFiles() throws IOException {
    try (Stream<Path> paths = Files.walk(ROOT)) {
      return paths
          .filter(p -> p.toString().endsWith(".md"))
          .filter(
              p -> {
                for (Path part : ROOT.relativize(p)) {
                  String name = part.toString();
                  if (name.equals("target")
                      || name.startsWith(".")
                      || name.equals("node_modules")) {
                    return false;
                  }
                }
                return true;
              })
          .sorted()
          .toList();
    }
  }

  static List<Command> fencedCommands(Path file) throws IOException {
    List<Command> commands = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    boolean inBlock = false;
    int block = 0;
    List<String> w = null;
    StringBuilder pending = null;
    int start = 0;
    for (int i = 0; i < lines.size(); i++) {
      String raw = lines.get(i);
      if (raw.stripLeading().startsWith("```")) {
        inBlock = !inBlock;
        block++;
        w = null;
        pending = null;
        continue;
      }
      if (!inBlock) {
        continue;
      }
      String code = withoutComment(raw).strip();
      if (code.startsWith("W=\"")) {
        w = words(code.substring(3, code.lastIndexOf('"')));
        continue;
      }
      if (pending == null) {
        String unstripped = raw.stripLeading();
        if (!code.startsWith("bin/lockstep ") || unstripped.startsWith("bin/lockstep  ")) {
          continue;
        }
        pending = new StringBuilder();
        start = i + 1;
      }
      if (code.endsWith("\\")) {
        pending.append(code, 0, code.length() - 1).append(' ');
        continue;
      }
      pending.append(code);
      String text = pending.toString().trim().replaceAll(" +", " ");
      pending = null;
      List<String> words = new ArrayList<>();
      for (String word : words(text.substring("bin/lockstep ".length()))) {
        if (word.equals("$W")) {
          assertThat(w)
              .as("%s:%d uses $W but its block defines no W=\"...\"", file, start)
              .isNotNull();
          words.addAll(w);
        } else {
          words.add(word);
        }
      }
      commands.add(new Command(file, start, block, text, words));
    }
    return commands;
  }

  static List<Inline> inlineCommands(Path file) throws IOException {
    List<Inline> spans = new ArrayList<>();
    List<String> lines = Files.readAllLines(file);
    boolean inBlock = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.stripLeading().startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      if (inBlock) {
        continue;
      }
      Matcher m = INLINE.matcher(line);
      while (m.find()) {
        spans.add(new Inline(file, i + 1, m.group(1)));
      }
    }
    return spans;
  }

  static String withoutComment(String line) {
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
  static List<String> words(String text) {
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

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new LockstepCli());
    cli.registerConverter(Duration.class, LockstepCli::duration);
    return cli;
  }

  /** Why a command is parse-checked only, or null when it is run. */
  static String whyNotRun(List<String> words) {
    for (String word : words) {
      int scheme = word.indexOf("://");
      if (scheme > 0 && !word.substring(word.lastIndexOf('=', scheme) + 1).startsWith("file:")) {
        return "it needs the service at " + word;
      }
      if (word.contains("...")) {
        return "it has a placeholder (" + word + ")";
      }
      if (word.startsWith("~")) {
        return "it reads " + word + " in the user's home";
      }
    }
    if (words.contains("--continuous") && !words.contains("--for")) {
      return "it runs until stopped (--continuous without --for)";
    }
    return null;
  }

  /** Parses a whole command and checks its {@code -o} keys; returns the failure, or null. */
  static String parseProblem(List<String> words) {
    try {
      commandLine().parseArgs(words.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      return e.getMessage();
    }
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < words.size(); i++) {
      if (words.get(i).equals("-o") || words.get(i).equals("--option")) {
        String kv = words.get(i + 1);
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          return "-o " + kv + " is not key=value";
        }
        options.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    try {
      OptionKeys.validate(options);
    } catch (RuntimeException e) {
      return e.getMessage();
    }
    return null;
  }

  /**
   * Checks an inline span: its words up to the first flag name a command, and every flag is one of
   * that command's (including inherited ones). Returns the failure, or null.
   */
  static String inlineProblem(String text) {
    String body = text.startsWith("bin/") ? text.substring(4) : text;
    List<String> words = words(body.substring("lockstep ".length()));
    CommandLine current = commandLine();
    for (String word : words) {
      if (word.equals("...") || word.startsWith("<")) {
        continue;
      }
      if (word.startsWith("-")) {
        String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
        CommandSpec spec = current.getCommandSpec();
        if (spec.findOption(name) == null) {
          return "'" + current.getCommandName() + "' has no option " + name;
        }
        continue;
      }
      CommandLine sub = current.getSubcommands().get(word);
      if (sub != null) {
        current = sub;
      } else if (current.getCommandSpec().positionalParameters().isEmpty()
          && !previousTakesValue(current, words, word)) {
        return "'" + current.getCommandName() + "' has no subcommand '" + word + "'";
      }
    }
    return null;
  }

  /** Whether {@code word} is the value of the option before it. */
  private static boolean previousTakesValue(CommandLine cli, List<String> words, String word) {
    int i = words.indexOf(word);
    if (i <= 0 || !words.get(i - 1).startsWith("-")) {
      return false;
    }
    CommandSpec spec = cli.getCommandSpec();
    var option = spec.findOption(words.get(i - 1));
    return option != null && option.arity().max() > 0;
  }

  @Test
  void everyFencedCommandParsesAndEveryLocalOneRuns() throws Exception {
    List<String> parsed = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int blocksRun = 0;
    Object lastBlock = null;
    Path blockDir = null;
    for (Path file : markdownFiles()) {
      for (Command command : fencedCommands(file)) {
        String problem = parseProblem(command.words());
        if (problem != null) {
          problems.add(command.where() + "\n    does not parse: " + problem);
          continue;
        }
        String why = whyNotRun(command.words());
        if (why != null) {
          parsed.add(command.where() + "  (parse-checked: " + why + ")");
          continue;
        }
        Object key = List.of(file, command.block());
        if (!key.equals(lastBlock)) {
          lastBlock = key;
          blockDir = Files.createDirectories(dir.resolve("block-" + ++blocksRun));
        }
        List<String> words = localized(command.words(), blockDir);
        List<String> scale = SCALE.getOrDefault(words.get(0), List.of());
        if (!scale.isEmpty() && (scale.get(0).equals("-o") || !words.contains(scale.get(0)))) {
          words.addAll(scale);
        }
        long started = System.nanoTime();
        CliRun run = CliRun.of(words.toArray(String[]::new));
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (run.exitCode() != 0) {
          problems.add(
              command.where()
                  + "\n    ran as "
                  + String.join(" ", words)
                  + "\n    exit "
                  + run.exitCode()
                  + ": "
                  + run.err()
                  + run.out());
        } else {
          ran.add(command.where() + "  (" + millis + " ms)");
        }
      }
    }
    System.out.println("run:\n  " + String.join("\n  ", ran));
    System.out.println("parse-checked only:\n  " + String.join("\n  ", parsed));
    assertThat(problems).as("README commands that fail").isEmpty();
    // The extraction finds what the READMEs show (a broken extractor must not pass vacuously).
    assertThat(ran).anyMatch(c -> c.startsWith("README.md:") && c.contains(" stress"));
    assertThat(ran).anyMatch(c -> c.startsWith("README.md:") && c.contains(" conformance --store"));
    assertThat(ran).anyMatch(c -> c.startsWith("README.md:") && c.contains(" table rollback"));
    assertThat(ran).anyMatch(c -> c.startsWith("cli/README.md:") && c.contains(" table drop"));
    assertThat(parsed).anyMatch(c -> c.contains("s3://"));
    assertThat(ran.size() + parsed.size()).isGreaterThanOrEqualTo(39);
  }

  /** Moves {@code /tmp/...} into {@code blockDir} and relative CSV inputs next to it. */
  private static List<String> localized(List<String> words, Path blockDir) throws IOException {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word =
          words
              .get(i)
              .replace("file:///tmp/", blockDir.toUri() + "")
              .replaceAll("^/tmp/", blockDir + "/");
      if (i > 0 && words.get(i - 1).equals("--csv") && !word.equals("-") && !word.startsWith("/")) {
        List<String> rows = INPUTS.get(word);
        assertThat(rows)
            .as("a README command reads %s: add its rows to DocCommandsTest.INPUTS", word)
            .isNotNull();
        Path input = blockDir.resolve(word);
        if (!Files.exists(input)) {
          Files.write(input, rows);
        }
        word = input.toString();
      }
      out.add(word);
    }
    return out;
  }

  @Test
  void everyInlineCommandNamesRealFlags() throws Exception {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path file : markdownFiles()) {
      for (Inline span : inlineCommands(file)) {
        checked++;
        String problem = inlineProblem(span.text());
        if (problem != null) {
          problems.add(
              ROOT.relativize(span.file())
                  + ":"
                  + span.line()
                  + ": `"
                  + span.text()
                  + "`: "
                  + problem);
        }
      }
    }
    assertThat(problems).as("inline lockstep commands that do not exist").isEmpty();
    assertThat(checked).isGreaterThan(10);
  }

  @Test
  void aDriftedFlagIsCaught() {
    // The issue's own example: the flag is --store.
    assertThat(parseProblem(List.of("conformance", "--uri", "/tmp/x"))).contains("--uri");
    assertThat(inlineProblem("lockstep conformance --uri s3://bucket/prefix ..."))
        .contains("--uri");
    assertThat(inlineProblem("lockstep tabel create")).contains("tabel");
    assertThat(parseProblem(List.of("stress", "-o", "lock.enabeld=true"))).contains("lock.enabeld");
    assertThat(parseProblem(List.of("conformance", "--store", "/tmp/x"))).isNull();
    assertThat(inlineProblem("lockstep table create -o ...")).isNull();
  }
}
