package dev.lockstep.conformance;

import dev.lockstep.conformance.CheckResult.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The JUnit XML report (the Ant/Surefire {@code testsuites} format CI servers read): one {@code
 * testsuite} per contract, one {@code testcase} per check, with {@code failure} or {@code skipped}.
 * Written with an XML stream writer, so every message is escaped. The target and the declarations
 * are {@code properties} of the first suite; secrets are masked.
 */
final class JUnitXmlReport {

  private JUnitXmlReport() {}

  static void write(ConformanceResult result, java.nio.file.Path file) throws IOException {
    Map<String, List<CheckResult>> byContract =
        result.checks().stream()
            .collect(
                Collectors.groupingBy(
                    CheckResult::contract, LinkedHashMap::new, Collectors.toList()));
    try (OutputStream out = Files.newOutputStream(file)) {
      XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
      xml.writeStartDocument("UTF-8", "1.0");
      xml.writeCharacters("\n");
      xml.writeStartElement("testsuites");
      xml.writeAttribute("name", "lockstep-conformance");
      xml.writeAttribute("tests", Integer.toString(result.checks().size()));
      xml.writeAttribute("failures", Long.toString(result.count(Status.FAILED)));
      xml.writeAttribute("errors", "0");
      xml.writeAttribute("skipped", Long.toString(result.count(Status.SKIPPED)));
      xml.writeAttribute("time", seconds(result.duration()));
      boolean first = true;
      for (Map.Entry<String, List<CheckResult>> suite : byContract.entrySet()) {
        List<CheckResult> checks = suite.getValue();
        xml.writeCharacters("\n  ");
        xml.writeStartElement("testsuite");
        xml.writeAttribute("name", "dev.lockstep.conformance." + suite.getKey());
        xml.writeAttribute("tests", Integer.toString(checks.size()));
        xml.writeAttribute("failures", Long.toString(count(checks, Status.FAILED)));
        xml.writeAttribute("errors", "0");
        xml.writeAttribute("skipped", Long.toString(count(checks, Status.SKIPPED)));
        xml.writeAttribute(
            "time",
            seconds(
                checks.stream().map(CheckResult::duration).reduce(Duration.ZERO, Duration::plus)));
        xml.writeAttribute("timestamp", result.started().toString());
        if (first) {
          writeProperties(xml, result);
          first = false;
        }
        for (CheckResult check : checks) {
          xml.writeCharacters("\n    ");
          xml.writeStartElement("testcase");
          xml.writeAttribute("classname", "dev.lockstep.conformance." + check.contract());
          xml.writeAttribute("name", check.check());
          xml.writeAttribute("time", seconds(check.duration()));
          if (check.status() == Status.FAILED) {
            xml.writeStartElement("failure");
            xml.writeAttribute("message", clean(check.reason()));
            xml.writeAttribute("type", "AssertionError");
            xml.writeCharacters(clean(check.detail().isEmpty() ? check.reason() : check.detail()));
            xml.writeEndElement();
          } else if (check.status() == Status.SKIPPED) {
            xml.writeStartElement("skipped");
            xml.writeAttribute("message", clean(check.reason()));
            xml.writeEndElement();
          }
          xml.writeEndElement();
        }
        xml.writeCharacters("\n  ");
        xml.writeEndElement();
      }
      xml.writeCharacters("\n");
      xml.writeEndElement();
      xml.writeCharacters("\n");
      xml.writeEndDocument();
      xml.flush();
      xml.close();
    } catch (XMLStreamException e) {
      throw new IOException("Could not write the JUnit XML report " + file, e);
    }
  }

  private static void writeProperties(XMLStreamWriter xml, ConformanceResult result)
      throws XMLStreamException {
    xml.writeCharacters("\n    ");
    xml.writeStartElement("properties");
    property(xml, "target", result.targetDescription());
    property(xml, "settings", result.settings());
    property(xml, "verdict", result.verdict());
    for (String warning : result.warnings()) {
      property(xml, "warning", warning);
    }
    for (Capability c : Capability.values()) {
      property(xml, c.propertyKey(), String.valueOf(result.declarations().get(c)));
    }
    xml.writeCharacters("\n    ");
    xml.writeEndElement();
  }

  private static void property(XMLStreamWriter xml, String name, String value)
      throws XMLStreamException {
    xml.writeCharacters("\n      ");
    xml.writeEmptyElement("property");
    xml.writeAttribute("name", name);
    xml.writeAttribute("value", clean(value));
  }

  private static long count(List<CheckResult> checks, Status status) {
    return checks.stream().filter(c -> c.status() == status).count();
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9);
  }

  /** Removes characters XML 1.0 cannot carry (control characters other than tab and newlines). */
  static String clean(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            cp -> {
              boolean allowed =
                  cp == 0x9
                      || cp == 0xA
                      || cp == 0xD
                      || (cp >= 0x20 && cp <= 0xD7FF)
                      || (cp >= 0xE000 && cp <= 0xFFFD)
                      || (cp >= 0x10000 && cp <= 0x10FFFF);
              sb.appendCodePoint(allowed ? cp : '?');
            });
    return sb.toString();
  }
}
