package dev.kxm.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the transcript and reader for the sweep file (maps, lists, strings,
 * booleans, numbers, null). The program adds no dependency for it.
 */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object value) {
    if (value == null) {
      sb.append("null");
    } else if (value instanceof Boolean || value instanceof Number) {
      sb.append(value);
    } else if (value instanceof Map<?, ?> map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (value instanceof List<?> list) {
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        write(sb, list.get(i));
      }
      sb.append(']');
    } else {
      string(sb, value.toString());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /**
   * Parses one JSON value: objects become LinkedHashMap, arrays List, strings String, numbers Long
   * (without a fraction or exponent) or Double, true/false Boolean, null null.
   */
  static Object parse(String text) {
    Reader r = new Reader(text);
    Object value = r.value();
    r.skipSpace();
    if (r.pos != text.length()) {
      throw r.error("trailing characters");
    }
    return value;
  }

  private static final class Reader {
    private final String s;
    private int pos;

    Reader(String s) {
      this.s = s;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }

    void skipSpace() {
      while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
        pos++;
      }
    }

    private char peek() {
      skipSpace();
      if (pos >= s.length()) {
        throw error("unexpected end");
      }
      return s.charAt(pos);
    }

    private void expect(char c) {
      if (peek() != c) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    private boolean literal(String word) {
      if (s.startsWith(word, pos)) {
        pos += word.length();
        return true;
      }
      return false;
    }

    Object value() {
      return switch (peek()) {
        case '{' -> object();
        case '[' -> array();
        case '"' -> string();
        default -> literalOrNumber();
      };
    }

    private Object literalOrNumber() {
      if (literal("true")) {
        return Boolean.TRUE;
      }
      if (literal("false")) {
        return Boolean.FALSE;
      }
      if (literal("null")) {
        return null;
      }
      return number();
    }

    private Map<String, Object> object() {
      Map<String, Object> map = new LinkedHashMap<>();
      expect('{');
      if (peek() == '}') {
        pos++;
        return map;
      }
      while (true) {
        if (peek() != '"') {
          throw error("expected a key");
        }
        String key = string();
        expect(':');
        map.put(key, value());
        if (peek() == ',') {
          pos++;
        } else {
          expect('}');
          return map;
        }
      }
    }

    private List<Object> array() {
      List<Object> list = new ArrayList<>();
      expect('[');
      if (peek() == ']') {
        pos++;
        return list;
      }
      while (true) {
        list.add(value());
        if (peek() == ',') {
          pos++;
        } else {
          expect(']');
          return list;
        }
      }
    }

    private String string() {
      expect('"');
      StringBuilder sb = new StringBuilder();
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return sb.toString();
        }
        if (c != '\\') {
          sb.append(c);
          continue;
        }
        if (pos >= s.length()) {
          throw error("unterminated escape");
        }
        char e = s.charAt(pos++);
        switch (e) {
          case '"', '\\', '/' -> sb.append(e);
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case 'u' -> {
            if (pos + 4 > s.length()) {
              throw error("short \\u escape");
            }
            sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> throw error("bad escape");
        }
      }
    }

    private Number number() {
      int start = pos;
      while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
        pos++;
      }
      String n = s.substring(start, pos);
      if (n.isEmpty()) {
        throw error("unexpected character");
      }
      try {
        return n.matches("-?\\d+") ? (Number) Long.parseLong(n) : (Number) Double.parseDouble(n);
      } catch (NumberFormatException e) {
        throw error("bad number");
      }
    }
  }
}
