package io.tablecast.it;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GeoJSON form of docs/TYPES.md computed from a MySQL/MariaDB spatial value's bytes, as JDBC
 * reads them (the storage format: a 4-byte little-endian SRID, then the OGC WKB), independently of
 * the database's {@code ST_AsGeoJSON}: coordinates as doubles, an SRID other than 0 as a {@code
 * "crs": {"type": "name", "properties": {"name": "EPSG:<srid>"}}} member.
 */
final class GeoJsonOfWkb {
  private static final String[] TYPES = {
    null,
    "Point",
    "LineString",
    "Polygon",
    "MultiPoint",
    "MultiLineString",
    "MultiPolygon",
    "GeometryCollection"
  };

  private final ByteBuffer in;

  private GeoJsonOfWkb(byte[] bytes) {
    in = ByteBuffer.wrap(bytes);
  }

  /** The GeoJSON object (maps and lists) of one stored value. */
  static Map<String, Object> of(byte[] stored) {
    GeoJsonOfWkb r = new GeoJsonOfWkb(stored);
    int srid = r.in.order(ByteOrder.LITTLE_ENDIAN).getInt();
    Map<String, Object> geometry = r.geometry();
    if (srid != 0) {
      geometry.put("crs", Map.of("type", "name", "properties", Map.of("name", "EPSG:" + srid)));
    }
    return geometry;
  }

  private Map<String, Object> geometry() {
    in.order(in.get() == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    int type = in.getInt();
    if (type < 1 || type >= TYPES.length) {
      throw new IllegalStateException("WKB geometry type " + type + " is not a 2D OGC type");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", TYPES[type]);
    if (type == 7) {
      List<Object> members = new ArrayList<>();
      for (int i = in.getInt(); i > 0; i--) {
        members.add(geometry());
      }
      out.put("geometries", members);
    } else {
      out.put("coordinates", coordinates(type));
    }
    return out;
  }

  private Object coordinates(int type) {
    switch (type) {
      case 1:
        return point();
      case 2:
        return points();
      case 3:
        {
          List<Object> rings = new ArrayList<>();
          for (int i = in.getInt(); i > 0; i--) {
            rings.add(points());
          }
          return rings;
        }
      default:
        { // Multi*: each member is a whole WKB geometry of the single type
          List<Object> members = new ArrayList<>();
          for (int i = in.getInt(); i > 0; i--) {
            in.order(in.get() == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            members.add(coordinates(in.getInt()));
          }
          return members;
        }
    }
  }

  private List<Object> points() {
    List<Object> out = new ArrayList<>();
    for (int i = in.getInt(); i > 0; i--) {
      out.add(point());
    }
    return out;
  }

  private List<Object> point() {
    return List.of(in.getDouble(), in.getDouble());
  }
}
