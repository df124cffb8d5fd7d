/* report.html behaviour: requirement filters, copy buttons, expand/collapse, opening the failure
   a link points at, and printing with every <details> open. No network, no dependencies. */
/* global document, window, navigator */
(function () {
  'use strict';

  // Requirement filters: status, level, class and free text, all combined with AND.
  var table = document.querySelector('table.reqs');
  var form = document.querySelector('form.filters');
  if (table && form) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var shown = form.querySelector('.shown');
    var empty = document.querySelector('.empty-filter');
    var controls = form.querySelectorAll('[data-filter]');
    var apply = function () {
      var want = {};
      controls.forEach(function (c) { want[c.getAttribute('data-filter')] = c.value.trim().toLowerCase(); });
      var words = want.text ? want.text.split(/\s+/) : [];
      var n = 0;
      rows.forEach(function (row) {
        var ok = (!want.status || row.getAttribute('data-status') === want.status) &&
          (!want.level || row.getAttribute('data-level').toLowerCase() === want.level) &&
          (!want['class'] || row.getAttribute('data-class').toLowerCase() === want['class']);
        if (ok && words.length) {
          var text = row.getAttribute('data-text');
          ok = words.every(function (w) { return text.indexOf(w) >= 0; });
        }
        row.hidden = !ok;
        if (ok) n++;
      });
      if (shown) shown.textContent = n + ' of ' + rows.length;
      if (empty) empty.hidden = n !== 0;
    };
    controls.forEach(function (c) { c.addEventListener('input', apply); c.addEventListener('change', apply); });
    apply();
  }

  // Copy buttons: the Clipboard API where the page is a secure context (file:// is), else a selection.
  var copyText = function (text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text, done); });
    } else {
      fallbackCopy(text, done);
    }
  };
  var fallbackCopy = function (text, done) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    try { document.execCommand('copy'); done(); } catch { /* the text stays selectable by hand */ }
    document.body.removeChild(area);
  };
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button[data-copy]') : null;
    if (button) {
      var code = button.parentNode.querySelector('code');
      copyText(code ? code.textContent : '', function () {
        button.textContent = 'Copied';
        button.classList.add('done');
        window.setTimeout(function () { button.textContent = 'Copy'; button.classList.remove('done'); }, 1500);
      });
      return;
    }
    var expand = event.target.closest ? event.target.closest('[data-expand],[data-collapse]') : null;
    if (expand) {
      var open = expand.hasAttribute('data-expand');
      var scope = document.querySelector(expand.getAttribute(open ? 'data-expand' : 'data-collapse'));
      if (scope) scope.querySelectorAll('details.failure').forEach(function (d) { d.open = open; });
    }
  });

  // A link to a failure (from the requirement table or the tiles) opens it.
  var openTarget = function () {
    if (!window.location.hash) return;
    var el = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (!el) return;
    for (var node = el; node; node = node.parentElement) if (node.tagName === 'DETAILS') node.open = true;
    el.scrollIntoView();
  };
  window.addEventListener('hashchange', openTarget);
  openTarget();

  // Printing: every <details> open (a closed one would print only its summary), restored afterwards.
  var closedBeforePrint = [];
  window.addEventListener('beforeprint', function () {
    closedBeforePrint = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) { return !d.open; });
    closedBeforePrint.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    closedBeforePrint.forEach(function (d) { d.open = false; });
    closedBeforePrint = [];
  });
})();
