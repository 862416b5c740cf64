// fabperf report page: draws the model fabperf embedded in this file (fabperf-model) as
// given: charts with Chart.js, tables and notes as text. Every figure was chosen, scaled and
// formatted by fabperf's data step (src/report/report_model.cc); this script only draws, by
// the page's rules: one hue family per run, one dash per statistic, a legend grouped by run,
// no series hidden, outliers past an axis' end drawn on its edge with their value, and a
// ratio chart redrawn for whichever run the reader picks as the baseline.
(function () {
  'use strict';

  const errorList = document.getElementById('report-errors');
  let errorCount = 0;
  function reportError(message) {
    errorCount += 1;
    document.body.dataset.errors = String(errorCount);
    const item = document.createElement('li');
    item.textContent = message;
    errorList.appendChild(item);
  }
  window.addEventListener('error', (e) => reportError(String(e.message || e)));

  // One hue a run; shades of it tell a run's series apart (sizes, loop values).
  const runHues = [212, 4, 140, 30, 275, 185, 330, 55];
  const markerPalette = ['#444', '#888', '#1b9e77', '#d95f02', '#7570b3', '#e7298a',
                         '#66a61e', '#e6ab02', '#a6761d', '#666'];
  // One dash a statistic, the same in every chart and run.
  const dashes = {p99: [7, 4], mean: [2, 3], reported: []};
  const kBannersShown = 3;  // host-noise banners shown one by one; more are folded into one

  function element(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function number(v) {
    if (!isFinite(v)) return '';
    const a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString('en-US');
    return String(+v.toPrecision(4));
  }

  function withUnit(v, unit) {
    if (!unit) return number(v);
    return number(v) + (unit[0] === '/' || unit === '%' || unit === '\u00d7' ? '' : ' ') + unit;
  }

  // --- state shared by every chart: the runs shown and the ratio charts' baseline ----------
  const state = {model: null, charts: [], hiddenRuns: new Set(), base: 0, specs: new Map()};

  function runLabel(run) {
    const r = state.model.runs[run];
    return r ? r.label : 'run ' + run;
  }

  // --- tables -------------------------------------------------------------------------------
  function renderTable(spec) {
    const t = element('table', 'numbers');
    t.dataset.title = spec.title;
    if (spec.id) t.id = spec.id;
    t.appendChild(element('caption', '', spec.title));
    const head = t.createTHead().insertRow();
    // A column of numbers is right-aligned, its header with it.
    const numeric = spec.columns.map((_, i) => spec.rows.some((r) => r[i] && r[i].v !== undefined));
    spec.columns.forEach((c, i) => head.appendChild(element('th', numeric[i] ? 'num' : '', c)));
    const body = t.createTBody();
    for (const row of spec.rows) {
      const tr = body.insertRow();
      row.forEach((cell, i) => {
        const td = element(i === 0 ? 'th' : 'td', cell.c || '', cell.t);
        if (cell.v !== undefined) {
          td.dataset.value = String(cell.v);
          td.classList.add('num');
        }
        if (cell.k !== undefined) td.dataset.key = cell.k;
        tr.appendChild(td);
      });
    }
    // A box that scrolls sideways if the table cannot fit, rather than clipping it.
    const box = element('div', 'table-box');
    box.appendChild(t);
    return box;
  }

  function renderHeader(run, several) {
    const box = element('section', 'run-header');
    box.dataset.mode = run.mode;
    box.dataset.status = run.status || 'ok';
    const t = element('table', 'header');
    t.appendChild(element('caption', '', several ? run.label : 'Run'));
    for (const [name, text] of run.header) {
      const tr = t.insertRow();
      tr.appendChild(element('th', '', name));
      const td = element('td', name === 'command' ? 'mono' : '', text);
      // An interrupted or failed run says so where its parameters are read.
      if (name === 'status' && run.status && run.status !== 'ok') td.classList.add('bad');
      tr.appendChild(td);
    }
    box.appendChild(t);
    return box;
  }

  // What differs between the runs, before anything else is read.
  function renderDifferences(model) {
    const box = element('section', 'differences');
    box.id = 'differences';
    box.appendChild(element('h2', '', 'What differs between the runs'));
    if (!model.differences.length) {
      box.appendChild(element('p', '', 'Nothing: every parameter, host and version is the same.'));
      return box;
    }
    const spec = {title: 'Parameters that differ', id: 'differences-table',
                  columns: ['parameter'].concat(model.runs.filter((r) => r.mode !== 'matrix')
                      .map((r) => r.label)),
                  rows: model.differences.map((d) => [{t: d.name}].concat(
                      d.values.map((v, i) => ({t: v, c: i > 0 && v !== d.values[0] ? 'changed'
                                                                                 : ''}))))};
    box.appendChild(renderTable(spec));
    return box;
  }

  // The runs shown, and the baseline of the ratio charts: one toggle a run.
  function renderRunBar(model) {
    const bar = element('div', 'run-bar');
    bar.id = 'run-bar';
    bar.appendChild(element('span', 'run-bar-title', 'Runs:'));
    model.runs.forEach((run, i) => {
      if (run.mode === 'matrix') return;
      const label = element('label', 'run-toggle');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.dataset.run = String(i);
      box.addEventListener('change', () => setRunShown(i, box.checked));
      const swatch = element('span', 'swatch');
      swatch.style.background = color(i, 0, 1);
      label.append(box, swatch, document.createTextNode(run.label));
      bar.appendChild(label);
    });
    const pick = element('label', 'baseline');
    pick.appendChild(document.createTextNode('Ratio baseline: '));
    const select = document.createElement('select');
    select.id = 'baseline';
    model.runs.forEach((run, i) => {
      if (run.mode === 'matrix') return;
      const o = element('option', '', run.label);
      o.value = String(i);
      select.appendChild(o);
    });
    select.addEventListener('change', () => setBaseline(Number(select.value)));
    pick.appendChild(select);
    bar.appendChild(pick);
    return bar;
  }

  // --- axes ---------------------------------------------------------------------------------
  function percentileLabel(v) {
    const decade = Math.log10(v);
    if (Math.abs(decade - Math.round(decade)) > 1e-9) return '';
    return String(+(100 - 100 / v).toFixed(6)) + '%';
  }

  function scale(axis) {
    const s = {
      type: axis.log ? 'logarithmic' : 'linear',
      title: {display: true, text: axis.label + (axis.unit ? ' (' + axis.unit + ')' : '')},
      ticks: {},
    };
    if (isFinite(axis.max)) s.max = axis.max;
    if (axis.ticks === 'percentile') {
      s.ticks.callback = (v) => percentileLabel(v);
      s.ticks.autoSkip = false;
      s.ticks.maxRotation = 0;
    } else if (axis.ticks === 'values') {
      const labels = new Map(axis.values.map(([v, text]) => [v, text]));
      s.afterBuildTicks = (sc) => { sc.ticks = axis.values.map(([v]) => ({value: v})); };
      s.ticks.callback = (v) => (labels.has(v) ? labels.get(v) : '');
    } else if (axis.log) {
      s.ticks.callback = (v) => {
        const lead = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
        return [1, 2, 5].some((d) => Math.abs(lead - d) < 1e-6) ? number(v) : '';
      };
    } else if (axis.ticks !== 'ratio') {
      s.beginAtZero = true;  // a ratio axis fits its data instead: changes of a few % show
    }
    return s;
  }

  // --- series styles ------------------------------------------------------------------------
  function color(run, shade, shades, alpha) {
    const hue = runHues[run % runHues.length];
    const light = shades <= 1 ? 42 : 28 + (40 * shade) / (shades - 1);
    return 'hsla(' + hue + ', 70%, ' + light + '%, ' + (alpha === undefined ? 1 : alpha) + ')';
  }

  // Which shade of its run a series takes: its group (loop values), or for per-variant
  // series (histograms, percentile curves) the variant its label names.
  function groupKey(s) {
    if (s.group !== undefined) return s.group;
    if (s.stat === 'histogram' || s.stat === 'curve') return s.label;
    if (s.stat === 'reported') return s.label.replace(/ \(reported\)$/, '');
    if (s.stat === 'beyond') return s.label.replace(/ past [^ ]+ [^ ]+$/, '');
    return '';
  }

  // The ratio chart's series for the current baseline, from the absolute chart's data.
  function ratioSeries(spec) {
    const abs = state.specs.get(spec.of);
    if (!abs) return spec.series;
    const out = [];
    const base = state.base;
    for (const s of abs.series) {
      if (s.run === undefined || s.run === base) continue;
      const b = abs.series.find((x) => x.run === base && x.stat === s.stat &&
                                       (x.group || '') === (s.group || ''));
      if (!b) continue;
      const at = new Map(b.points.map(([x, y]) => [x, y]));
      const points = [];
      for (const [x, y] of s.points) {
        if (at.has(x) && at.get(x) !== 0) points.push([x, y / at.get(x)]);
      }
      out.push({label: s.label + ' / ' + runLabel(base), points, style: 'line', run: s.run,
                stat: s.stat, group: s.group});
    }
    return out;
  }

  // Draws values past the axis' end as triangles on the edge, each labelled with its value:
  // of consecutive clipped points only the largest, and no label over another.
  const edgeLabels = {
    id: 'edgeLabels',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const drawn = [];
      ctx.save();
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      chart.data.datasets.forEach((d, i) => {
        if (!chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i);
        d.data.forEach((p, j) => {
          if (!meta.data[j]) return;
          let text = '';
          if (p.edge) {
            text = p.edge;
          } else if (p.clipped) {
            const next = d.data[j + 1];
            const prev = d.data[j - 1];
            // One label a stretch of clipped points: at its largest value.
            const stretch = [prev, next].filter((q) => q && q.clipped);
            if (stretch.some((q) => q.clipped > p.clipped)) return;
            if (prev && prev.clipped === p.clipped) return;
            text = withUnit(p.clipped, chart.options.yUnit);
          } else {
            return;
          }
          const {x, y} = meta.data[j].getProps(['x', 'y'], true);
          const width = ctx.measureText(text).width;
          let left = x + 7;
          if (left + width > chart.chartArea.right + 40) left = x - 7 - width;
          const box = {l: left, r: left + width, t: y + 2, b: y + 14};
          if (drawn.some((o) => box.l < o.r && o.l < box.r && box.t < o.b && o.t < box.b)) return;
          drawn.push(box);
          ctx.fillStyle = d.borderColor;
          ctx.fillText(text, left, y + 2);
        });
      });
      ctx.restore();
    },
  };

  function datasetsOf(spec, series) {
    const shades = new Map();  // run -> group keys, in order
    for (const s of series) {
      if (s.run === undefined) continue;
      if (!shades.has(s.run)) shades.set(s.run, []);
      const keys = shades.get(s.run);
      if (!keys.includes(groupKey(s))) keys.push(groupKey(s));
    }
    const top = spec.y && isFinite(spec.y.max) ? spec.y.max : Infinity;
    let marker = 0;
    const lines = series.filter((x) => x.style !== 'marker' && x.style !== 'points').length;
    const out = series.map((s) => {
      const data = s.points.map(([x, y]) => (y > top ? {x, y: top, clipped: y} : {x, y}));
      if (s.edge) for (const p of data) p.edge = s.edge;
      const d = {label: s.label, data, borderWidth: 2, fill: false, pointHitRadius: 6,
                 run: s.run, stat: s.stat,
                 pointRadius: (c) => (c.raw && c.raw.clipped ? 6 : spec.type === 'line' ? 3 : 0),
                 pointStyle: (c) => (c.raw && c.raw.clipped ? 'triangle' : 'circle')};
      if (s.style === 'marker') {
        d.borderColor = markerPalette[marker++ % markerPalette.length];
        d.borderDash = [5, 4];
        d.borderWidth = 1.5;
        d.pointRadius = 0;
        return d;
      }
      const run = s.run === undefined ? 0 : s.run;
      const keys = shades.get(run) || [''];
      const c = color(run, Math.max(0, keys.indexOf(groupKey(s))), keys.length);
      d.borderColor = c;
      d.backgroundColor = color(run, Math.max(0, keys.indexOf(groupKey(s))), keys.length, 0.2);
      d.borderDash = dashes[s.stat] || (s.style === 'dash' ? [6, 3] : []);
      if (s.style === 'points') {
        d.showLine = false;
        d.pointRadius = s.edge ? 7 : 4;
        // A marker on the axis' edge points past it; reported figures are diamonds.
        d.pointStyle = s.edge ? 'triangle' : 'rectRot';
        if (s.edge) d.rotation = 90;
        d.backgroundColor = c;
        return d;
      }
      if (s.style === 'step') {
        // Each interval is two points, its start and end, with its value. Chart.js's 'before'
        // draws a segment at its first point's value and turns at the second's x, so the
        // joins between intervals are vertical at their boundaries ('after' would draw each
        // segment at the next point's value: every interval one early).
        d.stepped = 'before';  // no dots at the corners
        d.pointRadius = (c2) => (c2.raw && c2.raw.clipped ? 6 : 0);
      }
      if (spec.type === 'histogram') {
        d.stepped = 'middle';
        d.borderWidth = 1.5;
        d.pointRadius = 0;
        d.fill = lines === 1 ? 'origin' : false;
      }
      return d;
    });
    // A ratio chart's reference: 1, the baseline itself.
    if (spec.type === 'ratio' && spec.x.values && spec.x.values.length) {
      const xs = spec.x.values.map(([v]) => v);
      out.push({label: 'the baseline (1)', data: [{x: xs[0], y: 1}, {x: xs[xs.length - 1], y: 1}],
                borderColor: '#888', borderDash: [3, 3], borderWidth: 1, pointRadius: 0,
                fill: false});
    }
    return out;
  }

  // --- charts -------------------------------------------------------------------------------
  function lineChart(spec, canvas) {
    const series = spec.type === 'ratio' ? ratioSeries(spec) : spec.series;
    const xUnit = spec.x.unit, yUnit = spec.y.unit;
    return new Chart(canvas, {
      type: 'line',
      data: {datasets: datasetsOf(spec, series)},
      plugins: [edgeLabels],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        yUnit,
        interaction: {mode: 'nearest', intersect: false},
        scales: {x: scale(spec.x), y: scale(spec.y)},
        plugins: {
          legend: {display: false},  // the page's own legend, grouped by run (below the chart)
          tooltip: {callbacks: {
            title: (items) => {
              if (!items.length) return '';
              const x = items[0].parsed.x;
              if (spec.x.ticks === 'percentile') return 'p' + String(+(100 - 100 / x).toFixed(4));
              return withUnit(x, xUnit);
            },
            label: (c) => c.dataset.label + ': ' +
                withUnit(c.raw && c.raw.clipped ? c.raw.clipped : c.parsed.y, yUnit),
          }},
        },
      },
    });
  }

  // Each cell's value written on it (small matrices: spec.cell_text), in black or white,
  // whichever reads on its colour.
  const cellText = {
    id: 'fabperfCellText',
    afterDatasetsDraw(chart) {
      const spec = chart.options.plugins.fabperfCellText;
      if (!spec || !spec.cell_text) return;
      const ctx = chart.ctx;
      const meta = chart.getDatasetMeta(0);
      const w = (chart.chartArea.width / spec.labels.length);
      const size = Math.max(7, Math.min(13, Math.floor(w / 4.2)));
      ctx.save();
      ctx.font = size + 'px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      let drawn = 0;
      meta.data.forEach((el, i) => {
        const raw = chart.data.datasets[0].data[i];
        const c = raw.c || '#ffffff';
        const lum = 0.299 * parseInt(c.substr(1, 2), 16) + 0.587 * parseInt(c.substr(3, 2), 16) +
            0.114 * parseInt(c.substr(5, 2), 16);
        ctx.fillStyle = lum > 140 ? '#111' : '#fff';
        const p = el.getCenterPoint(true);
        ctx.fillText(number(raw.v), p.x, p.y);
        drawn += 1;
      });
      ctx.restore();
      chart.canvas.parentNode.parentNode.dataset.cellText = String(drawn);
    },
  };

  // Brackets beside the rows for groups of ranks (the switches where the topology is known).
  const rowGroups = {
    id: 'fabperfRowGroups',
    afterDraw(chart) {
      const spec = chart.options.plugins.fabperfRowGroups;
      if (!spec || !spec.groups || !spec.groups.length) return;
      const y = chart.scales.y, area = chart.chartArea, ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = '#556';
      ctx.fillStyle = '#334';
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      for (const g of spec.groups) {
        const top = y.getPixelForValue(g.first - 0.5), bottom = y.getPixelForValue(g.last + 0.5);
        ctx.beginPath();
        ctx.moveTo(area.right + 4, top + 1);
        ctx.lineTo(area.right + 8, top + 1);
        ctx.lineTo(area.right + 8, bottom - 1);
        ctx.lineTo(area.right + 4, bottom - 1);
        ctx.stroke();
        ctx.fillText(g.label, area.right + 11, (top + bottom) / 2);
        // A line between groups across the matrix.
        if (g.first > 0) {
          ctx.beginPath();
          ctx.moveTo(area.left, top);
          ctx.lineTo(area.right, top);
          ctx.stroke();
        }
      }
      ctx.restore();
      chart.canvas.parentNode.parentNode.dataset.rowGroups = String(spec.groups.length);
    },
  };

  function heatmap(spec, canvas) {
    const n = spec.labels.length;
    const suspects = new Map(spec.suspects.map(([x, y, verdict]) => [x + ',' + y, verdict]));
    const cells = spec.cells.map(([x, y, v, c]) => ({x, y, v, c, s: suspects.get(x + ',' + y)}));
    const axisOf = (axis, reverse) => ({
      type: 'linear', min: -0.5, max: n - 0.5, reverse, offset: false,
      title: {display: true, text: axis.label},
      grid: {display: false},
      // One tick a rank, at the cell centres (a linear axis from -0.5 would put them between).
      afterBuildTicks: (sc) => { sc.ticks = spec.labels.map((_, i) => ({value: i})); },
      ticks: {autoSkip: true, callback: (v) => spec.labels[v] || ''},
    });
    // Lines between switches (spec.separators: the first index of each switch but the first).
    const separators = {
      id: 'separators',
      afterDatasetsDraw(chart) {
        const seps = spec.separators || [];
        if (!seps.length) return;
        const {ctx, chartArea: area, scales: {x, y}} = chart;
        ctx.save();
        ctx.strokeStyle = 'rgba(0,0,0,0.55)';
        ctx.lineWidth = 1;
        for (const i of seps) {
          const px = x.getPixelForValue(i - 0.5), py = y.getPixelForValue(i - 0.5);
          ctx.beginPath();
          ctx.moveTo(px, area.top);
          ctx.lineTo(px, area.bottom);
          ctx.moveTo(area.left, py);
          ctx.lineTo(area.right, py);
          ctx.stroke();
        }
        ctx.restore();
      },
    };
    return new Chart(canvas, {
      type: 'matrix',
      data: {datasets: [{
        label: spec.title,
        data: cells,
        backgroundColor: (c) => (c.raw ? c.raw.c : 'transparent'),
        borderColor: (c) => (c.raw && c.raw.s ? '#000000' : 'rgba(255,255,255,0.6)'),
        // Outlines thinner on small cells, so a suspect's colour still shows.
        borderWidth: (c) => (c.raw && c.raw.s
          ? Math.max(1, Math.min(3, (c.chart.chartArea || {width: 0}).width / n / 5)) : 0.5),
        width: ({chart}) => Math.max(1, (chart.chartArea || {width: 0}).width / n - 1),
        height: ({chart}) => Math.max(1, (chart.chartArea || {height: 0}).height / n - 1),
      }]},
      plugins: [separators, cellText, rowGroups],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        layout: {padding: {right: spec.groups && spec.groups.length ? 90 : 0}},
        scales: {x: axisOf(spec.x, false), y: axisOf(spec.y, true)},
        plugins: {
          fabperfCellText: spec,
          fabperfRowGroups: spec,
          legend: {display: false},
          tooltip: {callbacks: {
            title: () => '',
            label: (c) => spec.labels[c.raw.y] + ' \u2192 ' + spec.labels[c.raw.x] + ': ' +
                number(c.raw.v) + ' ' + spec.unit + (c.raw.s ? ' (' + c.raw.s + ')' : ''),
          }},
        },
      },
    });
  }

  // The colour bar from the best measured value to the worst, the baseline and the threshold
  // marked where they fall on it (or named beside it when off the measured range).
  function heatLegend(spec) {
    const box = element('div', 'heat-legend');
    const sc = spec.scale;
    if (!sc) {  // a fleet's heatmap by switch: its legend's stops carry their own text
      const bar = element('span', 'heat-bar');
      bar.style.background = 'linear-gradient(to right, ' +
          spec.legend.map(([, color]) => color).join(', ') + ')';
      box.appendChild(element('span', '', spec.legend[0][0] + ' (best)'));
      box.appendChild(bar);
      box.appendChild(element('span', '', spec.legend[spec.legend.length - 1][0] + ' (worst)'));
      box.appendChild(element('span', 'suspect-key', 'outlined: suspect'));
      return box;
    }
    const bar = element('span', 'heat-bar');
    bar.style.background = 'linear-gradient(to right, ' +
        spec.legend.map(([, color]) => color).join(', ') + ')';
    const best = element('span', 'heat-end', sc.best + ' (best)');
    best.dataset.end = 'best';
    best.dataset.value = String(sc.best_v);
    const worst = element('span', 'heat-end', sc.worst + ' (worst)');
    worst.dataset.end = 'worst';
    worst.dataset.value = String(sc.worst_v);
    const notes = [];
    for (const m of sc.marks) {
      // A tick on the bar where the value falls; its name and value beside the bar.
      const note = element('span', 'heat-note', m.name + ' ' + m.text);
      note.dataset.mark = m.name;
      note.dataset.value = String(m.v);
      note.dataset.at = m.at === null ? 'off' : String(m.at);
      if (m.at === null) {
        note.textContent += ' (beyond the measured values)';
      } else {
        const tick = element('span', 'heat-mark');
        tick.title = m.name + ' ' + m.text;
        tick.dataset.mark = m.name;
        tick.style.left = (100 * m.at) + '%';
        note.classList.add('mark-' + m.name);
        tick.classList.add('mark-' + m.name);
        bar.appendChild(tick);
      }
      notes.push(note);
    }
    box.appendChild(best);
    box.appendChild(bar);
    box.appendChild(worst);
    for (const note of notes) box.appendChild(note);
    box.appendChild(element('span', 'suspect-key', 'outlined: suspect'));
    return box;
  }

  // The legend, grouped by run: a run's heading shows or hides the whole run in this chart,
  // an entry one series. Each swatch shows the series' colour and dash.
  function renderLegend(entry) {
    const {chart, legend} = entry;
    legend.textContent = '';
    const groups = new Map();
    chart.data.datasets.forEach((d, i) => {
      const key = d.run === undefined ? 'figures' : d.run;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(i);
    });
    const several = state.model.runs.length > 1;
    for (const [key, indexes] of groups) {
      const group = element('div', 'legend-run');
      if (key !== 'figures') group.dataset.run = String(key);
      if (several || key === 'figures') {
        const head = element('button', 'legend-run-name', key !== 'figures' ? runLabel(key)
            : entry.spec.type === 'ratio' ? 'reference' : 'marked figures');
        head.type = 'button';
        head.addEventListener('click', () => {
          const show = indexes.some((i) => !chart.isDatasetVisible(i)) ;
          for (const i of indexes) chart.setDatasetVisibility(i, show);
          chart.update();
          renderLegend(entry);
        });
        group.appendChild(head);
      }
      for (const i of indexes) {
        const d = chart.data.datasets[i];
        const item = element('button', 'legend-item' + (chart.isDatasetVisible(i) ? '' : ' off'));
        item.type = 'button';
        const swatch = element('span', 'legend-swatch');
        swatch.style.borderTopColor = d.borderColor;
        swatch.style.borderTopStyle = d.borderDash && d.borderDash.length
          ? (d.borderDash[0] <= 2 ? 'dotted' : 'dashed') : 'solid';
        const prefix = several && key !== 'figures' ? runLabel(key) + ' ' : '';
        const text = prefix && d.label.startsWith(prefix) ? d.label.slice(prefix.length) : d.label;
        item.append(swatch, document.createTextNode(text));
        item.addEventListener('click', () => {
          chart.setDatasetVisibility(i, !chart.isDatasetVisible(i));
          chart.update();
          renderLegend(entry);
        });
        group.appendChild(item);
      }
      legend.appendChild(group);
    }
    describe(entry);
  }

  // What the library drew, for people and for the browser test: datasets, elements, how
  // many are hidden, the axis units, the points on an axis' edge.
  function describe(entry) {
    const {chart, figure, spec} = entry;
    let elements = 0, hidden = 0, clipped = 0;
    const runs = new Set();
    chart.data.datasets.forEach((d, i) => {
      elements += chart.getDatasetMeta(i).data.length;
      if (!chart.isDatasetVisible(i)) hidden += 1;
      if (d.run !== undefined) runs.add(d.run);
      for (const p of d.data) if (p && p.clipped) clipped += 1;
    });
    figure.dataset.series = String(chart.data.datasets.length);
    figure.dataset.elements = String(elements);
    figure.dataset.hidden = String(hidden);
    figure.dataset.runs = String(runs.size);
    figure.dataset.clipped = String(clipped);
    if (spec.x) figure.dataset.xUnit = spec.x.unit || '';
    if (spec.y) figure.dataset.yUnit = spec.y.unit || '';
    if (spec.type === 'ratio') figure.dataset.base = runLabel(state.base);
    figure.dataset.rendered = elements > 0 && chart.canvas.width > 0 ? 'yes' : 'empty';
  }

  function renderChart(spec, parent) {
    const figure = element('figure', 'chart');
    figure.id = spec.id;
    figure.dataset.type = spec.type;
    const caption = element('figcaption', '', spec.title);
    figure.appendChild(caption);
    const box = element('div', 'canvas-box');
    if (spec.type === 'heatmap') {
      const side = Math.min(820, Math.max(320, 120 + spec.labels.length * 22));
      box.style.height = side + 'px';
      box.style.maxWidth = (side + 120) + 'px';
    }
    const canvas = document.createElement('canvas');
    box.appendChild(canvas);
    figure.appendChild(box);
    if (spec.type === 'heatmap') figure.appendChild(heatLegend(spec));
    const legend = element('div', 'legend');
    if (spec.type !== 'heatmap') figure.appendChild(legend);
    parent.appendChild(figure);
    state.specs.set(spec.id, spec);
    try {
      const chart = spec.type === 'heatmap' ? heatmap(spec, canvas) : lineChart(spec, canvas);
      const entry = {chart, figure, spec, legend, canvas};
      if (spec.type === 'ratio') {
        caption.textContent = spec.title.replace('a baseline run', runLabel(state.base));
      }
      if (spec.type === 'heatmap') {
        let elements = 0;
        chart.data.datasets.forEach((_, i) => { elements += chart.getDatasetMeta(i).data.length; });
        figure.dataset.series = String(chart.data.datasets.length);
        figure.dataset.elements = String(elements);
        figure.dataset.rendered = elements > 0 && canvas.width > 0 ? 'yes' : 'empty';
      } else {
        renderLegend(entry);
      }
      state.charts.push(entry);
      return chart;
    } catch (e) {
      figure.dataset.rendered = 'error';
      reportError(spec.id + ': ' + e.message);
      return null;
    }
  }

  // --- the run toggle and the baseline ------------------------------------------------------
  function applyRuns(entry) {
    const {chart} = entry;
    chart.data.datasets.forEach((d, i) => {
      if (d.run !== undefined) chart.setDatasetVisibility(i, !state.hiddenRuns.has(d.run));
    });
    chart.update();
    renderLegend(entry);
  }

  function setRunShown(run, shown) {
    if (shown) state.hiddenRuns.delete(run); else state.hiddenRuns.add(run);
    document.body.dataset.hiddenRuns = Array.from(state.hiddenRuns).join(',');
    for (const entry of state.charts) if (entry.spec.type !== 'heatmap') applyRuns(entry);
  }

  function setBaseline(run) {
    state.base = run;
    for (const entry of state.charts) {
      if (entry.spec.type !== 'ratio') continue;
      entry.chart.data.datasets = datasetsOf(entry.spec, ratioSeries(entry.spec));
      entry.figure.querySelector('figcaption').textContent =
          entry.spec.title.replace('a baseline run', runLabel(run));
      applyRuns(entry);
    }
  }

  // --- tables that fit their card -----------------------------------------------------------
  // A section whose tables do not fit beside its charts puts them below, across the card;
  // each table then says whether it fits (data-fits), and one that still cannot scrolls.
  function fitTables(main) {
    for (const body of main.querySelectorAll('.section-body')) {
      const tables = body.querySelector('.tables');
      if (!tables || body.classList.contains('tables-only')) continue;
      const tooWide = Array.from(tables.querySelectorAll('table'))
          .some((t) => t.scrollWidth > tables.clientWidth + 1);
      if (tooWide) body.classList.add('stacked');
    }
    for (const box of main.querySelectorAll('.table-box')) {
      const t = box.querySelector('table');
      const fits = t.scrollWidth <= box.clientWidth + 1;
      t.dataset.fits = fits ? 'yes' : 'no';
      t.dataset.width = String(t.scrollWidth);
      t.dataset.room = String(box.clientWidth);
      box.classList.toggle('scrolls', !fits);
    }
  }

  // --- the page -----------------------------------------------------------------------------
  function render(model) {
    state.model = model;
    if (window['chartjs-chart-matrix']) {
      const m = window['chartjs-chart-matrix'];
      Chart.register(m.MatrixController, m.MatrixElement);
    }
    const main = document.getElementById('report');
    // Runs measured under host noise (the JSON's host_noise verdict): said before anything.
    // Many (every repetition of a sweep on a loaded host) are one banner with the list folded
    // below it, so that the page still opens on its figures.
    const banners = model.banners || [];
    if (banners.length <= kBannersShown) {
      for (const text of banners) main.appendChild(element('p', 'banner', text));
    } else {
      const more = element('details', 'banners');
      more.dataset.count = String(banners.length);
      more.appendChild(element('summary', 'banner', banners.length + ' results were measured ' +
          'under host noise: their figures are not trustworthy (each, with its causes)'));
      for (const text of banners) more.appendChild(element('p', 'banner', text));
      main.appendChild(more);
    }
    const pairs = model.runs.filter((r) => r.mode !== 'matrix').length;
    if (model.differences) main.appendChild(renderDifferences(model));
    if (pairs > 1) main.appendChild(renderRunBar(model));
    const runs = element('div', 'runs');
    for (const run of model.runs) runs.appendChild(renderHeader(run, model.runs.length > 1));
    main.appendChild(runs);
    const nav = element('nav', 'toc');
    main.appendChild(nav);
    let charts = 0;
    for (const sec of model.sections) {
      const s = element('section', 'report-section');
      s.id = sec.id;
      s.appendChild(element('h2', '', sec.title));
      const link = element('a', '', sec.title);
      link.href = '#' + sec.id;
      nav.appendChild(link);
      for (const note of sec.notes) s.appendChild(element('p', 'note', note));
      const body = element('div', 'section-body');
      const chartBox = element('div', 'charts');
      const tableBox = element('div', 'tables');
      body.appendChild(chartBox);
      body.appendChild(tableBox);
      s.appendChild(body);
      main.appendChild(s);
      // A chart relative to a baseline sits beside its absolute chart.
      if (sec.charts.some((c) => c.type === 'ratio')) body.classList.add('paired');
      for (const c of sec.charts) if (renderChart(c, chartBox)) charts += 1;
      for (const t of sec.tables) tableBox.appendChild(renderTable(t));
      if (!sec.charts.length) body.classList.add('tables-only');
    }
    fitTables(main);
    // Charts sized before the tables moved: they follow their new boxes.
    for (const entry of state.charts) entry.chart.resize();
    document.body.dataset.charts = String(charts);
  }

  try {
    render(JSON.parse(document.getElementById('fabperf-model').textContent));
    document.body.dataset.status = 'rendered';
  } catch (e) {
    document.body.dataset.status = 'failed';
    reportError('report: ' + e.message);
  }
})();
