package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 25: messages never send a user to a command or flag that does not exist. Every {@code
 * 'lockstep <command> [<subcommand>] [--flag ...]'} quoted in the main sources of the command line,
 * lock-api, the engine and the connectors (messages join string literals, so the quote is searched
 * in the source with the literal joins removed, and a quote ends where a variable is joined in)
 * names a real command, and each flag after it is one of that command's options.
 */
class CommandNamesInMessagesTest {

  private static final Pattern QUOTED = Pattern.compile("'lockstep ([^'\"]+)['\"]");

  @Test
  void everyQuotedCommandAndFlagExists() throws Exception {
    List<String> quoted = new ArrayList<>();
    List<Path> sources = new ArrayList<>();
    for (String module :
        List.of(".", "../lock-api", "../engine", "../spark", "../flink/flink-common")) {
      try (Stream<Path> walk = Files.walk(Path.of(module, "src", "main", "java"))) {
        walk.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
      }
    }
    for (Path source : sources) {
      // "...'lockstep" + " table rollback'..." in the source is one quote in the message.
      String text = Files.readString(source).replaceAll("\"\\s*\\+\\s*\"", "");
      Matcher m = QUOTED.matcher(text);
      while (m.find()) {
        quoted.add(m.group(1));
      }
    }
    assertThat(quoted).as("quoted commands found").hasSizeGreaterThan(5);
    CommandLine root = new CommandLine(new LockstepCli());
    for (String q : quoted) {
      CommandLine command = root;
      String[] words = q.trim().split("\\s+");
      int i = 0;
      while (i < words.length && command.getSubcommands().containsKey(words[i])) {
        command = command.getSubcommands().get(words[i]);
        i++;
      }
      assertThat(i).as("'lockstep %s' names a command", q).isPositive();
      assertThat(
              i < words.length && !words[i].startsWith("-") && !command.getSubcommands().isEmpty())
          .as(
              "'lockstep %s': '%s' has no subcommand '%s'",
              q, command.getCommandSpec().qualifiedName(), i < words.length ? words[i] : "")
          .isFalse();
      for (; i < words.length; i++) {
        if (words[i].startsWith("-")) {
          assertThat(command.getCommandSpec().findOption(words[i]))
              .as(
                  "'lockstep %s': option %s of '%s'",
                  q, words[i], command.getCommandSpec().qualifiedName())
              .isNotNull();
        } else if (!words[i].matches("[A-Z]+|[A-Z]+=.*|\\.\\.\\.|[a-z0-9_.=/-]+")) {
          throw new AssertionError("'lockstep " + q + "': unexpected word " + words[i]);
        }
      }
    }
  }
}
