package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Markdown of the repository works from a clone (issue 25): every relative link points at a
 * file or directory inside the repository that exists, and no text points outside it (no {@code
 * ../shared/...}, no absolute path of a development machine, no {@code file://} link).
 */
class DocLinksTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** {@code [text](target)} and {@code [text](target "title")}; images too. */
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  /** Text that names a place outside the repository. */
  private static final Pattern OUTSIDE =
      Pattern.compile("(\\.\\./shared/|/work/|/home/[a-z]|file:///(?!tmp/)[a-z]|\\(file:)");

  @Test
  void everyRelativeLinkResolvesInsideTheRepository() throws Exception {
    List<String> problems = new ArrayList<>();
    int links = 0;
    for (Path file : DocCommandsTest.markdownFiles()) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LINK.matcher(lines.get(i));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*") || target.startsWith("#")) {
            continue; // http(s)/mailto links and anchors in the same file
          }
          links++;
          String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
          Path resolved = file.getParent().resolve(path).normalize();
          String where = ROOT.relativize(file) + ":" + (i + 1) + ": (" + target + ")";
          if (!resolved.startsWith(ROOT)) {
            problems.add(where + " points outside the repository");
          } else if (!Files.exists(resolved)) {
            problems.add(where + " does not exist");
          }
        }
      }
    }
    assertThat(problems).as("broken or outside links").isEmpty();
    assertThat(links).isGreaterThan(20);
  }

  @Test
  void noTextPointsOutsideTheRepository() throws Exception {
    List<String> problems = new ArrayList<>();
    for (Path file : DocCommandsTest.markdownFiles()) {
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = OUTSIDE.matcher(lines.get(i));
        if (m.find()) {
          problems.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(problems).as("text naming a place outside the repository").isEmpty();
  }
}
