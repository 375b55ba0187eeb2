/* Copy buttons: <button data-copy="ELEMENT_ID" data-copied="label" hidden> copies the text
   of that element (a bid's receipt). Without JavaScript the button stays hidden and the
   receipt can be selected by hand. */
function fallbackCopy(text) {
  var area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  var done = false;
  try { done = document.execCommand("copy"); } catch (e) { done = false; }
  document.body.removeChild(area);
  return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
}
function copy(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); });
  }
  return fallbackCopy(text);
}
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) { return; }
  var label = button.textContent;
  button.hidden = false;
  button.addEventListener("click", function () {
    copy(source.textContent.trim()).then(function () {
      button.textContent = button.getAttribute("data-copied") || label;
      window.setTimeout(function () { button.textContent = label; }, 2500);
    }, function () {
      var range = document.createRange();  // let the participant copy it by hand
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    });
  });
});
