package dev.lockstep.fs.oss.testing;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** XML for OSS request and response bodies: escaping on the way out, a DOM parser on the way in. */
final class OssXml {

  private OssXml() {}

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> {
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            out.append("&#").append((int) c).append(';');
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  static String element(String name, Object value) {
    return "<" + name + ">" + escape(String.valueOf(value)) + "</" + name + ">";
  }

  /**
   * Parses a request body.
   *
   * @throws OssError 400 {@code MalformedXML} when the body is not XML
   */
  static Element parse(byte[] body) throws OssError {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      DocumentBuilder builder = factory.newDocumentBuilder();
      return builder.parse(new ByteArrayInputStream(body)).getDocumentElement();
    } catch (Exception e) {
      throw new OssError(
          400,
          "MalformedXML",
          "0016-00000001",
          "The XML you provided was not well-formed or did not validate: " + e.getMessage());
    }
  }

  static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element && ((Element) n).getTagName().equals(name)) {
        out.add((Element) n);
      }
    }
    return out;
  }

  static String childText(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0).getTextContent();
  }
}
