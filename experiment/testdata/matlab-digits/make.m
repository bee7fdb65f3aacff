% Writes a tiny stand-in for MATLAB's rotated digits (the paper's E1 data)
% for experiment's tests: a bar through the centre of a 28 x 28 image at
% an angle in -45..45 degrees; the target is the angle.
% Run: octave --no-gui -q make.m
rand('seed', 7);
function [X, a] = bars(n)
  X = zeros(28, 28, 1, n);
  a = int16(round(90 * rand(n, 1) - 45));
  [c, r] = meshgrid(1:28, 1:28);
  for k = 1:n
    t = double(a(k)) * pi / 180;
    % distance of each pixel from the line through the centre at angle t
    d = abs(-(r - 14.5) * cos(t) - (c - 14.5) * sin(t));
    X(:, :, 1, k) = round(4 * max(0, 1 - d / 2)) / 4;
  end
end
[XTrain, anglesTrain] = bars(60);
[XTest, anglesTest] = bars(40);
save('-v7', 'DigitsDataTrain.mat', 'XTrain', 'anglesTrain');
save('-v7', 'DigitsDataTest.mat', 'XTest', 'anglesTest');
