// fabperf report page: draws the model fabperf embedded in this file (fabperf-model) as
// given: charts with Chart.js, tables and notes as text. Every figure was chosen, scaled and
// formatted by fabperf's data step (src/report/report_model.cc); this script only draws.
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

  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b',
                   '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
  const markerPalette = ['#444', '#888', '#1b9e77', '#d95f02', '#7570b3', '#e7298a',
                         '#66a61e', '#e6ab02', '#a6761d', '#666'];

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

  // --- tables -------------------------------------------------------------------------------
  function renderTable(spec) {
    const t = element('table', 'numbers');
    t.dataset.title = spec.title;
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
    return t;
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
    } else {
      s.beginAtZero = true;
    }
    return s;
  }

  // --- charts -------------------------------------------------------------------------------
  function lineChart(spec, canvas) {
    let color = 0, marker = 0, lastColor = palette[0];
    const datasets = spec.series.map((s) => {
      const data = s.points.map(([x, y]) => ({x, y}));
      const d = {label: s.label, data, borderWidth: 2, pointRadius: 0, fill: false,
                 pointHitRadius: 6, hidden: s.hidden === true};
      if (s.style === 'marker') {
        d.borderColor = markerPalette[marker++ % markerPalette.length];
        d.borderDash = [5, 4];
        d.borderWidth = 1.5;
        return d;
      }
      if (s.style === 'points') {
        d.showLine = false;
        d.pointRadius = 4;
        d.pointStyle = 'rectRot';
        d.borderColor = d.backgroundColor = lastColor;
        return d;
      }
      lastColor = palette[color++ % palette.length];
      d.borderColor = lastColor;
      d.backgroundColor = lastColor + '33';
      if (s.style === 'dash') d.borderDash = [6, 3];
      if (spec.type === 'histogram') {
        d.stepped = 'middle';
        d.borderWidth = 1.5;
        d.fill = spec.series.filter((x) => x.style !== 'marker').length === 1 ? 'origin' : false;
      } else if (spec.type === 'line') {
        d.pointRadius = 3;
      }
      return d;
    });
    const xUnit = spec.x.unit, yUnit = spec.y.unit;
    return new Chart(canvas, {
      type: 'line',
      data: {datasets},
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: {mode: 'nearest', intersect: false},
        scales: {x: scale(spec.x), y: scale(spec.y)},
        plugins: {
          legend: {position: 'bottom', labels: {boxWidth: 14}},
          tooltip: {callbacks: {
            title: (items) => {
              if (!items.length) return '';
              const x = items[0].parsed.x;
              if (spec.x.ticks === 'percentile') return 'p' + String(+(100 - 100 / x).toFixed(4));
              return number(x) + (xUnit ? ' ' + xUnit : '');
            },
            label: (c) => c.dataset.label + ': ' + number(c.parsed.y) + (yUnit ? ' ' + yUnit : ''),
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

  function renderChart(spec, parent) {
    const figure = element('figure', 'chart');
    figure.id = spec.id;
    figure.dataset.type = spec.type;
    figure.appendChild(element('figcaption', '', spec.title));
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
    parent.appendChild(figure);
    try {
      const chart = spec.type === 'heatmap' ? heatmap(spec, canvas) : lineChart(spec, canvas);
      // What the library drew, for people and for the browser test: datasets and elements.
      let elements = 0;
      chart.data.datasets.forEach((_, i) => { elements += chart.getDatasetMeta(i).data.length; });
      figure.dataset.series = String(chart.data.datasets.length);
      figure.dataset.elements = String(elements);
      figure.dataset.rendered = elements > 0 && canvas.width > 0 ? 'yes' : 'empty';
      return chart;
    } catch (e) {
      figure.dataset.rendered = 'error';
      reportError(spec.id + ': ' + e.message);
      return null;
    }
  }

  // --- the page -----------------------------------------------------------------------------
  function render(model) {
    if (window['chartjs-chart-matrix']) {
      const m = window['chartjs-chart-matrix'];
      Chart.register(m.MatrixController, m.MatrixElement);
    }
    const main = document.getElementById('report');
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
      for (const c of sec.charts) if (renderChart(c, chartBox)) charts += 1;
      for (const t of sec.tables) tableBox.appendChild(renderTable(t));
      if (!sec.charts.length) body.classList.add('tables-only');
    }
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
