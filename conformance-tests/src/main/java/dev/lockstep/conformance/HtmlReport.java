package dev.lockstep.conformance;

import dev.lockstep.conformance.CheckResult.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The HTML report: one self-contained file (inline CSS, no scripts, images, fonts or links to
 * fetch) that opens from disk anywhere. Sections: verdict, target, capability matrix (declared vs
 * observed), commit strategies safe on this backend, every check with its result and reason, and
 * latency percentiles. Written as well-formed XHTML with an XML stream writer, so every message is
 * escaped.
 */
final class HtmlReport {

  private static final String CSS =
      String.join(
          "\n",
          "body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em;"
              + "color:#1d2329;max-width:1200px}",
          "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em}",
          "table{border-collapse:collapse;width:100%;margin:.5em 0}",
          "th,td{border:1px solid #d0d7de;padding:.35em .6em;text-align:left;vertical-align:top}",
          "th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}",
          ".verdict{padding:.6em 1em;border-radius:6px;font-weight:600;display:inline-block}",
          ".pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}",
          ".warning{background:#fff8c5;color:#7d4e00}",
          ".skip{background:#fff8c5;color:#7d4e00}.muted{color:#57606a}",
          "pre{white-space:pre-wrap;font-size:.85em;margin:.3em 0}",
          "code{font-size:.9em}");

  private HtmlReport() {}

  static void write(ConformanceResult result, java.nio.file.Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      XMLStreamWriter h = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
      h.writeDTD("<!DOCTYPE html>");
      h.writeCharacters("\n");
      h.writeStartElement("html");
      h.writeDefaultNamespace("http://www.w3.org/1999/xhtml");
      h.writeAttribute("lang", "en");
      h.writeStartElement("head");
      h.writeEmptyElement("meta");
      h.writeAttribute("charset", "UTF-8");
      element(h, "title", "Lockstep conformance report");
      element(h, "style", CSS);
      h.writeEndElement();
      h.writeStartElement("body");
      element(h, "h1", "Lockstep conformance report");
      h.writeStartElement("p");
      span(h, result.passed() ? "verdict pass" : "verdict fail", result.verdict());
      h.writeEndElement();
      for (String warning : result.warnings()) {
        h.writeStartElement("p");
        span(h, "verdict warning", "Reduced run: " + warning);
        h.writeEndElement();
      }
      h.writeStartElement("p");
      h.writeAttribute("class", "muted");
      h.writeCharacters(
          String.format(
              Locale.ROOT,
              "%d checks: %d passed, %d failed, %d skipped." + " Started %s, ran %.1f s.",
              result.checks().size(),
              result.count(Status.PASSED),
              result.count(Status.FAILED),
              result.count(Status.SKIPPED),
              result.started(),
              result.duration().toMillis() / 1000.0));
      h.writeEndElement();
      element(h, "h2", "Target");
      element(h, "pre", result.targetDescription());
      element(h, "pre", result.settings());

      matrix(h, result);
      strategies(h, result);
      checks(h, result);
      latencies(h, result);

      h.writeEndElement();
      h.writeEndElement();
      h.writeCharacters("\n");
      h.writeEndDocument();
      h.flush();
      h.close();
    } catch (XMLStreamException e) {
      throw new IOException("Could not write the HTML report " + file, e);
    }
  }

  private static void matrix(XMLStreamWriter h, ConformanceResult result)
      throws XMLStreamException {
    element(h, "h2", "Capability matrix");
    h.writeStartElement("table");
    h.writeAttribute("id", "capability-matrix");
    row(h, "th", "Capability", "Declared", "Observed", "Passed", "Failed", "Skipped");
    for (ConformanceResult.CapabilityRow r : result.capabilityMatrix()) {
      h.writeStartElement("tr");
      cell(h, null, r.capability().id());
      cell(
          h,
          r.declared().isEmpty() ? "fail" : null,
          r.declared().map(d -> d ? "present" : "absent").orElse("NOT DECLARED"));
      String css =
          switch (r.observed()) {
            case HOLDS -> "pass";
            case ABSENT, NOT_CHECKED -> "skip";
            default -> "fail";
          };
      cell(h, css, r.observed().name().toLowerCase(Locale.ROOT));
      cell(h, "num", Integer.toString(r.passed()));
      cell(h, "num", Integer.toString(r.failed()));
      cell(h, "num", Integer.toString(r.skipped()));
      h.writeEndElement();
    }
    h.writeEndElement();
  }

  private static void strategies(XMLStreamWriter h, ConformanceResult result)
      throws XMLStreamException {
    element(h, "h2", "Commit strategies on this backend");
    h.writeStartElement("table");
    h.writeAttribute("id", "commit-strategies");
    row(h, "th", "commit.strategy", "Safe", "Why");
    for (ConformanceResult.StrategyVerdict s : result.strategies()) {
      h.writeStartElement("tr");
      cell(h, null, s.strategy());
      cell(h, s.safe() ? "pass" : "fail", s.safe() ? "safe" : "not safe");
      cell(h, null, s.why());
      h.writeEndElement();
    }
    h.writeEndElement();
  }

  private static void checks(XMLStreamWriter h, ConformanceResult result)
      throws XMLStreamException {
    element(h, "h2", "Checks");
    h.writeStartElement("table");
    h.writeAttribute("id", "checks");
    row(h, "th", "Contract", "Check", "Result", "Time", "Reason");
    for (CheckResult c : result.checks()) {
      h.writeStartElement("tr");
      h.writeAttribute("id", c.name());
      cell(h, null, c.contract());
      h.writeStartElement("td");
      element(h, "code", c.check());
      h.writeEndElement();
      cell(
          h,
          switch (c.status()) {
            case PASSED -> "pass";
            case FAILED -> "fail";
            default -> "skip";
          },
          c.status().name().toLowerCase(Locale.ROOT));
      cell(h, "num", String.format(Locale.ROOT, "%.2f s", c.duration().toMillis() / 1000.0));
      h.writeStartElement("td");
      if (c.status() == Status.FAILED) {
        element(h, "pre", JUnitXmlReport.clean(ConsoleReport.firstLines(c.reason(), 30)));
      } else {
        h.writeCharacters(JUnitXmlReport.clean(c.reason()));
      }
      h.writeEndElement();
      h.writeEndElement();
    }
    h.writeEndElement();
  }

  private static void latencies(XMLStreamWriter h, ConformanceResult result)
      throws XMLStreamException {
    element(h, "h2", "Latencies measured during the run");
    h.writeStartElement("table");
    h.writeAttribute("id", "latencies");
    row(h, "th", "Operation", "Calls", "p50 ms", "p95 ms", "p99 ms", "max ms");
    for (var e : result.latencies().entrySet()) {
      Latencies.Percentiles p = e.getValue();
      h.writeStartElement("tr");
      cell(h, null, e.getKey());
      cell(h, "num", Long.toString(p.count()));
      cell(h, "num", ms(p.p50()));
      cell(h, "num", ms(p.p95()));
      cell(h, "num", ms(p.p99()));
      cell(h, "num", ms(p.max()));
      h.writeEndElement();
    }
    h.writeEndElement();
  }

  private static String ms(java.time.Duration d) {
    return String.format(Locale.ROOT, "%.2f", ConsoleReport.millis(d));
  }

  private static void row(XMLStreamWriter h, String tag, String... cells)
      throws XMLStreamException {
    h.writeStartElement("tr");
    for (String c : cells) {
      element(h, tag, c);
    }
    h.writeEndElement();
  }

  private static void cell(XMLStreamWriter h, String css, String text) throws XMLStreamException {
    h.writeStartElement("td");
    if (css != null) {
      h.writeAttribute("class", css);
    }
    h.writeCharacters(JUnitXmlReport.clean(text));
    h.writeEndElement();
  }

  private static void span(XMLStreamWriter h, String css, String text) throws XMLStreamException {
    h.writeStartElement("span");
    h.writeAttribute("class", css);
    h.writeCharacters(text);
    h.writeEndElement();
  }

  private static void element(XMLStreamWriter h, String tag, String text)
      throws XMLStreamException {
    h.writeStartElement(tag);
    h.writeCharacters(JUnitXmlReport.clean(text));
    h.writeEndElement();
  }
}
