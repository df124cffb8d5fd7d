/* report.html load charts, drawn with the inlined uPlot from the JSON in #chart-data.
   Colours come from the page's CSS variables, so the charts follow light and dark mode. */
/* global document, window, getComputedStyle, ResizeObserver, uPlot */
(function () {
  'use strict';
  var dataEl = document.getElementById('chart-data');
  if (!dataEl || typeof uPlot !== 'function') return;
  var charts = JSON.parse(dataEl.textContent);
  var css = getComputedStyle(document.documentElement);
  var v = function (name, fallback) { return (css.getPropertyValue(name) || '').trim() || fallback; };
  var ink = v('--text', '#222');
  var muted = v('--muted', '#666');
  var grid = v('--border', '#ddd');
  var statusColour = { '2xx': v('--s2xx', 'green'), '4xx': v('--s4xx', 'orange'), '429': v('--s429', 'purple'), '5xx': v('--s5xx', 'red') };
  var palette = [v('--link', '#0b61c4'), v('--s429', '#8e3fb3'), v('--s4xx', '#8a5a00'), v('--s2xx', '#1f7a35'), v('--s5xx', '#c42b1c'), muted];

  var axis = function (extra) {
    var a = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '11px system-ui, sans-serif', labelFont: '11px system-ui, sans-serif' };
    for (var k in extra) a[k] = extra[k];
    return a;
  };
  var fixed = function (n) { return function (u, val) { return val == null ? '–' : (+val).toFixed(n); }; };

  // "nines" on the x axis: 0 = p0, 1 = p90, 2 = p99, 3 = p99.9 ...
  var percentileLabel = function (nines) {
    if (nines <= 0) return 'min';
    var p = 100 * (1 - Math.pow(10, -nines));
    var digits = Math.max(0, Math.ceil(nines) - 2);
    var text = p.toFixed(digits);
    if (text.indexOf('.') >= 0) text = text.replace(/\.?0+$/, '');
    return 'p' + (Math.abs(nines - Math.log10(2)) < 1e-6 ? '50' : text);
  };

  var builders = {
    spectrum: function (d) {
      var series = [{ label: 'percentile', value: function (u, x) { return x == null ? '–' : percentileLabel(x); } }];
      d.series.forEach(function (s) {
        series.push({ label: s.label, stroke: statusColour[s.label] || ink, width: 2, spanGaps: true, value: function (u, y) { return y == null ? '–' : y.toFixed(2) + ' ms'; } });
      });
      var maxX = d.x[d.x.length - 1];
      return {
        opts: {
          scales: { x: { time: false, range: [0, maxX] }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; } } },
          series: series,
          axes: [
            axis({ splits: function () { return [Math.log10(2), 1, 2, 3, 4, 5].filter(function (s) { return s <= maxX + 1e-9; }); }, values: function (u, splits) { return splits.map(percentileLabel); } }),
            axis({ label: 'latency (ms)', size: 56 }),
          ],
        },
        data: [d.x].concat(d.series.map(function (s) { return s.values; })),
      };
    },
    throughput: function (d) {
      return {
        opts: {
          scales: { x: { time: false }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; } }, ms: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; } } },
          series: [
            { label: 'second', value: function (u, x) { return x == null ? '–' : 't+' + x + ' s'; } },
            { label: '2xx / s', stroke: statusColour['2xx'], fill: statusColour['2xx'] + '22', width: 2, value: fixed(0) },
            { label: 'mean latency', scale: 'ms', stroke: palette[0], width: 1.5, dash: [4, 3], spanGaps: false, value: function (u, y) { return y == null ? '–' : y.toFixed(2) + ' ms'; } },
          ],
          axes: [axis({ label: 'seconds since start' }), axis({ label: 'responses / s', size: 56 }), axis({ side: 1, scale: 'ms', label: 'ms', size: 56, grid: { show: false } })],
        },
        data: [d.x, d.count, d.mean],
      };
    },
    remaining: function (d) {
      var series = [{ label: 'request #', value: fixed(0) }];
      d.series.forEach(function (s, i) {
        series.push({ label: s.label, stroke: palette[i % palette.length], width: 2, spanGaps: true, points: { show: false }, value: fixed(0) });
      });
      return {
        opts: {
          scales: { x: { time: false }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } } },
          series: series,
          axes: [axis({ label: 'request index (per key)' }), axis({ label: 'X-RateLimit-Remaining', size: 56 })],
        },
        data: [d.x].concat(d.series.map(function (s) { return s.values; })),
      };
    },
  };

  var plots = [];
  document.querySelectorAll('[data-chart]').forEach(function (el) {
    var d = charts[el.getAttribute('data-chart')];
    var build = d && builders[d.kind];
    if (!build) return;
    var spec = build(d);
    spec.opts.width = Math.max(280, el.clientWidth || 480);
    spec.opts.height = 240;
    spec.opts.legend = { show: true, live: true };
    spec.opts.cursor = { drag: { x: true, y: false } };
    try {
      plots.push({ el: el, plot: new uPlot(spec.opts, spec.data, el) });
    } catch (e) {
      el.textContent = 'chart could not be drawn: ' + e.message;
    }
  });
  var resize = function () {
    plots.forEach(function (p) { p.plot.setSize({ width: Math.max(280, p.el.clientWidth), height: 240 }); });
  };
  if (typeof ResizeObserver === 'function') {
    var pending = 0;
    var ro = new ResizeObserver(function () { window.cancelAnimationFrame(pending); pending = window.requestAnimationFrame(resize); });
    plots.forEach(function (p) { ro.observe(p.el); });
  }
  window.addEventListener('beforeprint', resize);
})();
