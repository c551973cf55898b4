package io.gpuremediator.signals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * NVIDIA's Xid catalog as published ({@code Xid-Catalog.xlsx}, tests/real/xid-catalog), read from the workbook's own
 * XML: the "Xids" sheet (a row per code: its resolution bucket, immediate action, and on which GPUs it occurs) and the
 * "Xid 144-150 Decode" sheet (the NVLink5 XIDs' bucket per sub-unit and error status).
 */
record XidCatalog(Map<Integer, Xid> xids, List<DecodeRow> nvlink5Decode) {

  /** One row of the Xids sheet: column B, C, I, and E-H (YES where the code occurs on A100, H100, B100, GB200). */
  record Xid(int code, String mnemonic, String immediateAction, boolean occursOnDatacenterGpus) {}

  /** One row of the decode sheet: the XID (column A), its sub-unit (B), bucket (F) and severity (K). */
  record DecodeRow(int xid, String unit, String bucket, String severity) {}

  static final Path FILE = Path.of("../tests/real/xid-catalog/Xid-Catalog.xlsx");

  static XidCatalog read() throws IOException {
    try (ZipFile zip = new ZipFile(FILE.toFile())) {
      List<String> strings = sharedStrings(xml(zip, "xl/sharedStrings.xml"));
      Map<Integer, Xid> xids = new LinkedHashMap<>();
      for (Map<String, String> row : rows(xml(zip, "xl/worksheets/sheet1.xml"), strings)) {
        String code = row.getOrDefault("B", "");
        if (code.matches("[0-9]+")) {
          boolean occurs = List.of("E", "F", "G", "H").stream().anyMatch(c -> "YES".equals(row.get(c)));
          xids.put(Integer.parseInt(code), new Xid(Integer.parseInt(code), row.getOrDefault("C", "").strip(),
              row.getOrDefault("I", "").strip(), occurs));
        }
      }
      List<DecodeRow> decode = new ArrayList<>();
      for (Map<String, String> row : rows(xml(zip, "xl/worksheets/sheet2.xml"), strings)) {
        String xid = row.getOrDefault("A", "");
        if (xid.matches("[0-9]+")) {
          decode.add(new DecodeRow(Integer.parseInt(xid), row.getOrDefault("B", ""), row.getOrDefault("F", "").strip(),
              row.getOrDefault("K", "").strip()));
        }
      }
      return new XidCatalog(xids, decode);
    }
  }

  private static Document xml(ZipFile zip, String name) throws IOException {
    ZipEntry entry = zip.getEntry(name);
    if (entry == null) {
      throw new IOException(FILE + " has no " + name + ": not the workbook this reader knows");
    }
    try (InputStream in = zip.getInputStream(entry)) {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(false);
      return factory.newDocumentBuilder().parse(in);
    } catch (ParserConfigurationException | SAXException e) {
      throw new IOException(FILE + ": " + name + ": " + e.getMessage(), e);
    }
  }

  /** The shared strings, each the concatenation of its text runs. */
  private static List<String> sharedStrings(Document doc) {
    List<String> out = new ArrayList<>();
    NodeList items = doc.getElementsByTagName("si");
    for (int i = 0; i < items.getLength(); i++) {
      StringBuilder text = new StringBuilder();
      NodeList runs = ((Element) items.item(i)).getElementsByTagName("t");
      for (int j = 0; j < runs.getLength(); j++) {
        text.append(runs.item(j).getTextContent());
      }
      out.add(text.toString());
    }
    return out;
  }

  /** Each row as column letter to its value (shared strings resolved); empty cells are absent, as the file has them. */
  private static List<Map<String, String>> rows(Document sheet, List<String> strings) {
    List<Map<String, String>> out = new ArrayList<>();
    NodeList rows = sheet.getElementsByTagName("row");
    for (int i = 0; i < rows.getLength(); i++) {
      Map<String, String> cells = new LinkedHashMap<>();
      NodeList cs = ((Element) rows.item(i)).getElementsByTagName("c");
      for (int j = 0; j < cs.getLength(); j++) {
        Element c = (Element) cs.item(j);
        String column = c.getAttribute("r").replaceAll("[0-9]", "");
        NodeList v = c.getElementsByTagName("v");
        if (v.getLength() > 0) {
          String raw = v.item(0).getTextContent();
          cells.put(column, "s".equals(c.getAttribute("t")) ? strings.get(Integer.parseInt(raw)) : raw);
        } else if (c.getElementsByTagName("t").getLength() > 0) {
          cells.put(column, c.getElementsByTagName("t").item(0).getTextContent());
        }
      }
      out.add(cells);
    }
    return out;
  }
}
