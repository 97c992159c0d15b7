package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.conformance.CheckResult.Status;
import dev.lockstep.conformance.ConformanceResult.Observed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The runner against the local store and the in-JVM lock: every check of every contract runs and
 * passes, none is skipped, and the reports are a valid JUnit XML file and one standalone HTML file.
 */
class ConformanceRunnerTest {

  @TempDir Path root;

  @TempDir Path reports;

  @Test
  void localStoreConformsAndReportsAreStandalone() throws Exception {
    ConformanceResult result = ConformanceRunner.run(LocalTargets.local(root).build());
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    ConformanceRunner.printSummary(result, new PrintStream(console, true, StandardCharsets.UTF_8));
    String summary = console.toString(StandardCharsets.UTF_8);
    System.out.println(summary);

    assertThat(result.count(Status.FAILED)).as(summary).isZero();
    assertThat(result.count(Status.SKIPPED)).as(summary).isZero();
    assertThat(result.checks()).as("every check of every contract ran").hasSize(38);
    assertThat(result.passed()).as(summary).isTrue();
    assertThat(result.capabilityMatrix())
        .extracting(ConformanceResult.CapabilityRow::observed)
        .containsOnly(Observed.HOLDS);
    assertThat(result.strategies()).allSatisfy(s -> assertThat(s.safe()).as(s.why()).isTrue());
    assertThat(result.latencies())
        .containsKeys(
            "store.write",
            "store.createAtomically",
            "store.renameAtomically",
            "lock.acquire",
            "lock.release");
    assertThat(summary).contains("PASSED", "atomic-create", "SAFE", "p95");
    assertThat(result.warnings()).as("a full-size run is a publishable verdict").isEmpty();
    assertThat(summary).doesNotContain("WARNING");

    try (var left = Files.list(root)) {
      assertThat(left).as("every check deletes its own directory afterwards").isEmpty();
    }

    ConformanceRunner.writeReports(result, reports);
    assertJUnitXmlIsValid(reports.resolve(ConformanceRunner.XML_REPORT), 38, 0, 0);
    assertHtmlIsStandaloneWithMatrix(
        reports.resolve(ConformanceRunner.HTML_REPORT),
        List.of("present", "present", "present", "present"));
  }

  /**
   * A large object below 64 MiB is allowed (a quick local run), but every report says the run is
   * reduced and not a publishable verdict, naming the option.
   */
  @Test
  void aReducedLargeObjectSizeIsFlaggedInEveryReport() throws Exception {
    ConformanceTarget target =
        LocalTargets.local(root).option(ConformanceSettings.LARGE_OBJECT_SIZE, "3MiB").build();
    ConformanceResult result = ConformanceRunner.run(target, List.of(RunnerContracts.Store.class));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    ConformanceRunner.printSummary(result, new PrintStream(console, true, StandardCharsets.UTF_8));
    String summary = console.toString(StandardCharsets.UTF_8);

    assertThat(result.passed()).as(summary).isTrue();
    assertThat(result.warnings())
        .singleElement()
        .asString()
        .contains(ConformanceSettings.LARGE_OBJECT_SIZE, "3145728 bytes", "64 MiB", "publishable");
    assertThat(summary.lines().limit(2))
        .as("the warning is printed right under the verdict")
        .last()
        .asString()
        .startsWith("WARNING (reduced run): ")
        .contains(ConformanceSettings.LARGE_OBJECT_SIZE);

    ConformanceRunner.writeReports(result, reports);
    Document xml = assertJUnitXmlIsValid(reports.resolve(ConformanceRunner.XML_REPORT), 13, 0, 0);
    NodeList properties = xml.getElementsByTagName("property");
    boolean flagged = false;
    for (int i = 0; i < properties.getLength(); i++) {
      Element property = (Element) properties.item(i);
      flagged |=
          property.getAttribute("name").equals("warning")
              && property.getAttribute("value").contains(ConformanceSettings.LARGE_OBJECT_SIZE);
    }
    assertThat(flagged).as("the JUnit XML carries a 'warning' property").isTrue();
    assertThat(Files.readString(reports.resolve(ConformanceRunner.HTML_REPORT)))
        .contains("Reduced run: Option '" + ConformanceSettings.LARGE_OBJECT_SIZE);
  }

  /** Parses the JUnit XML and checks its counts against the test cases it holds. */
  static Document assertJUnitXmlIsValid(Path file, int tests, int failures, int skipped)
      throws Exception {
    Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    Element suites = xml.getDocumentElement();
    assertThat(suites.getTagName()).isEqualTo("testsuites");
    assertThat(suites.getAttribute("tests")).isEqualTo(Integer.toString(tests));
    assertThat(suites.getAttribute("failures")).isEqualTo(Integer.toString(failures));
    assertThat(suites.getAttribute("skipped")).isEqualTo(Integer.toString(skipped));
    NodeList cases = xml.getElementsByTagName("testcase");
    assertThat(cases.getLength()).isEqualTo(tests);
    assertThat(xml.getElementsByTagName("failure").getLength()).isEqualTo(failures);
    assertThat(xml.getElementsByTagName("skipped").getLength()).isEqualTo(skipped);
    int sum = 0;
    NodeList suiteList = xml.getElementsByTagName("testsuite");
    for (int i = 0; i < suiteList.getLength(); i++) {
      sum += Integer.parseInt(((Element) suiteList.item(i)).getAttribute("tests"));
    }
    assertThat(sum).as("suite counts add up").isEqualTo(tests);
    return xml;
  }

  /**
   * The HTML is one well-formed file with inline CSS and nothing to fetch (no scripts, stylesheets,
   * images or external URLs), and its capability matrix lists every capability with its
   * declaration.
   */
  static void assertHtmlIsStandaloneWithMatrix(Path file, List<String> declared) throws Exception {
    String html = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("<style>")
        .doesNotContain("<script", "<link", "<img", "src=", "@import", "url(");
    assertThat(html.replace("http://www.w3.org/1999/xhtml", ""))
        .doesNotContain("http://", "https://");
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    Element matrix = byId(doc, "table", "capability-matrix");
    NodeList rows = matrix.getElementsByTagName("tr");
    assertThat(rows.getLength())
        .as("header + one row per capability")
        .isEqualTo(1 + Capability.values().length);
    for (int i = 0; i < Capability.values().length; i++) {
      NodeList cells = ((Element) rows.item(i + 1)).getElementsByTagName("td");
      assertThat(cells.item(0).getTextContent()).isEqualTo(Capability.values()[i].id());
      assertThat(cells.item(1).getTextContent()).isEqualTo(declared.get(i));
    }
    assertThat(byId(doc, "table", "checks")).isNotNull();
    assertThat(byId(doc, "table", "latencies").getTextContent()).contains("p95");
    assertThat(byId(doc, "table", "commit-strategies").getTextContent())
        .contains("atomic-create", "rename", "lock");
  }

  private static Element byId(Document doc, String tag, String id) {
    NodeList nodes = doc.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      Element e = (Element) nodes.item(i);
      if (id.equals(e.getAttribute("id"))) {
        return e;
      }
    }
    throw new AssertionError("no <" + tag + " id=\"" + id + "\"> in the report");
  }
}
