// The toy's own page code: the page loads it through the spec and knows nothing else of it.
window.MeridianGames && window.MeridianGames.register("toy", {
  title: function (state) { return "Toy: three in a row"; },
});
