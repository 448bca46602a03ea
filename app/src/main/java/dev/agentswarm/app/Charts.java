package dev.agentswarm.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Line charts written as PNG files (headless), for curves that say more than a table. */
public final class Charts {

    /** One named line: x and y of equal length. */
    public record Series(String name, double[] x, double[] y) {
        public Series {
            if (x.length != y.length) throw new IllegalArgumentException("series " + name + ": " + x.length + " x values, " + y.length + " y values");
        }
    }

    private Charts() {}

    /** Writes a line chart of {@code series} (empty ones left out) to {@code png}; false when there was nothing to draw. */
    public static boolean line(Path png, String title, String xTitle, String yTitle, List<Series> series) throws IOException {
        Map<String, Series> drawn = new LinkedHashMap<>();
        for (Series s : series) if (s.x().length > 0) drawn.put(s.name(), s);
        if (drawn.isEmpty()) return false;
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(480).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(drawn.size() > 1);
        chart.getStyler().setChartTitleVisible(true);
        for (Series s : drawn.values()) {
            XYSeries line = chart.addSeries(s.name(), s.x(), s.y());
            line.setMarker(s.x().length > 40 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
        }
        if (png.getParent() != null) Files.createDirectories(png.getParent());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }
}
