//! Drawing the batches' figures as SVG (plotters): lines over x and grouped bars, one colour
//! per series, a legend and a caption line; and counting the series of an SVG of ours.

use plotters::prelude::*;

const SIZE: (u32, u32) = (800, 500);

fn colour(i: usize) -> RGBColor {
    // Colour-blind safe (Okabe-Ito).
    [
        RGBColor(0, 114, 178),
        RGBColor(230, 159, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
    ][i % 4]
}

pub(super) type Draw = Box<dyn std::error::Error>;

/// Every chart's legend (top right) and caption line (below it).
fn legend_and_caption<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    foot: &DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
) -> Result<(), Draw> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    foot.draw_text(
        caption,
        &("sans-serif", 12).into_font().color(&BLACK),
        (12, 4),
    )?;
    Ok(())
}

/// Lines over x, one series per batch.
pub(super) fn line_chart(
    title: &str,
    (x_desc, y_desc): (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    caption: &str,
) -> Result<String, Draw> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (body, foot) = root.split_vertically(SIZE.1 - 24);
        let x_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(x, _)| *x))
            .fold(1.0, f64::max);
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(_, y)| *y))
            .fold(0.0, f64::max)
            .max(1e-9)
            * 1.1;
        let mut chart = ChartBuilder::on(&body)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_labels((x_max as usize + 1).min(12))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        for (i, (label, points)) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
            chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())))?;
        }
        legend_and_caption(&mut chart, &foot, caption)?;
        root.present()?;
    }
    Ok(out)
}

/// Grouped bars: one group per category, one bar per series; `counts`: whole numbers on the
/// y axis.
pub(super) fn bar_chart(
    counts: bool,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    categories: &[String],
    series: &[(String, Vec<f64>)],
    caption: &str,
) -> Result<String, Draw> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (body, foot) = root.split_vertically(SIZE.1 - 24);
        let y_max = series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0, f64::max)
            .max(1.0)
            * 1.15;
        let n = categories.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&body)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..n, 0f64..y_max)?;
        let names = categories.to_vec();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .y_label_formatter(&|y| match counts {
                true if (y - y.round()).abs() > 1e-9 => String::new(),
                true => format!("{y:.0}"),
                false => format!("{y:.3}"),
            })
            .x_labels(categories.len() * 2 + 1)
            .x_label_formatter(&move |x| {
                // Labels at the groups' centres only.
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 0.01 {
                    names.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .draw()?;
        let width = 0.8 / series.len().max(1) as f64;
        for (si, (label, values)) in series.iter().enumerate() {
            let c = colour(si);
            chart
                .draw_series(values.iter().enumerate().map(|(ci, v)| {
                    let x0 = ci as f64 + 0.1 + si as f64 * width;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.95, *v)], c.filled())
                }))?
                .label(label.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        legend_and_caption(&mut chart, &foot, caption)?;
        root.present()?;
    }
    Ok(out)
}

/// How many series an SVG of ours draws: each has a colour of its own (the axes, ticks and
/// frames are black), for its lines or bars and its legend's sample.
pub fn series_in_svg(svg: &str) -> anyhow::Result<usize> {
    let doc = roxmltree::Document::parse(svg)?;
    let colours: std::collections::BTreeSet<&str> = doc
        .descendants()
        .filter(|n| matches!(n.tag_name().name(), "polyline" | "rect"))
        .filter_map(|n| {
            n.attribute("stroke")
                .filter(|c| *c != "none")
                .or(n.attribute("fill"))
        })
        .filter(|c| !matches!(*c, "#000000" | "#FFFFFF" | "none"))
        .collect();
    Ok(colours.len())
}
